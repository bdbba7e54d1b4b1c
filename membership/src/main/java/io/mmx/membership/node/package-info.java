/**
 * The thin threaded wrapper: an Agrona agent that drives the sans-IO membership nodes of one JVM over
 * an {@link io.mmx.aeron.transport.AeronTransport}.
 */
package io.mmx.membership.node;
