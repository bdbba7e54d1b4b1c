/**
 * Fixed-layout little-endian codecs of membership messages, carried as payloads of mmx frames.
 */
package io.mmx.membership.wire;
