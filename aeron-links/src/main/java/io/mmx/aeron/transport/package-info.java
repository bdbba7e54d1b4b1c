/**
 * Message transport over Aeron: a {@link io.mmx.aeron.transport.ProcessDirectory} maps process ids to
 * endpoints, one {@link io.mmx.aeron.transport.AeronTransport} per endpoint (per JVM) hosts any number of
 * processes, configured by one {@link io.mmx.aeron.transport.TransportContext}.
 */
package io.mmx.aeron.transport;
