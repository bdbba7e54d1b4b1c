/**
 * The mmx wire frame: a fixed 32-byte header, a payload and an 8-byte SipHash-2-4 tag keyed by the
 * cluster key. Encoding, verification and counting of dropped frames, all without allocation.
 */
package io.mmx.aeron.frame;
