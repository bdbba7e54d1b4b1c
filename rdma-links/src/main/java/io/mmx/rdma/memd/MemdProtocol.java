package io.mmx.rdma.memd;

import javax.crypto.Mac;
import javax.crypto.ShortBufferException;
import java.nio.ByteBuffer;

/**
 * The memd wire protocol, version 3. Every frame is a little-endian u32 length (bytes that
 * follow) and a body. On connect the daemon sends a HELLO with a fresh 16-byte nonce; every
 * later frame in either direction ends with HMAC-SHA256(processKey(requester), nonce ||
 * body-without-tag), where the process key is derived from the cluster key ({@link
 * io.mmx.rdma.region.ClusterKey#processKey}): frames cannot be forged without the requester's key
 * nor replayed on another connection; request ids must increase within a connection, so they
 * cannot be replayed on the same one either. A connection speaks for one requester.
 *
 * <p>Bindings: a connection carries up to {@link #MAX_BINDINGS} bindings, each to the owner's region
 * under one plan, the way one queue pair reaches several registered regions. Every request names its
 * binding (u16 at offset 2). The plan digest of CREATE_REGION and OPEN_REGION names the plan whose
 * region is meant (a daemon may hold one region per owner under each of several plans); once
 * granted, it binds that binding: the word and bulk ops that name it reach that plan's regions, and
 * that plan's edges grant access. A refused CREATE or OPEN unbinds it, so operations sent right
 * behind it (a client need not wait for the answer) are refused too ({@code REGION_MISMATCH}),
 * never served from another plan. Before any CREATE or OPEN, binding 0 is bound to the daemon's
 * launch plan and the others to nothing. A live plan change keeps the connections of the edges both
 * plans share and opens the new era's regions on them as a second binding (version 2 had one
 * binding per connection, so each era needed connections of its own).
 *
 * <pre>
 * HELLO    (daemon to client, 20 bytes, no tag)
 *   0 u8 version  1 u8 kind=0x40  2 u16 reserved  4 u8[16] nonce
 *
 * REQUEST  (client to daemon, 48 + payload + 32 bytes)
 *   0 u8 version  1 u8 op (OpType ordinal, 0x10 CREATE_REGION, 0x11 OPEN_REGION, 0x12 PING)  2 u16 binding
 *   4 i32 requester   8 i64 requestId   16 i32 owner   20 i32 length
 *  24 i64 offset     32 i64 operand1   40 i64 operand2
 *  48 payload: WRITE_BULK: length bytes; CREATE_REGION: 32-byte plan digest (operand1 = data bytes,
 *              operand2 = era); OPEN_REGION: 32-byte plan digest (operand2 = era)
 *  .. u8[32] tag
 *
 * RESPONSE (daemon to client, 24 + payload + 32 bytes)
 *   0 u8 version  1 u8 kind=0x80  2 u8 status (OpStatus ordinal)  3 u8 flags
 *   4 i32 payloadLength   8 i64 requestId   16 i64 value
 *  24 payload (READ_BULK: the bytes read)
 *  .. u8[32] tag
 * </pre>
 */
public final class MemdProtocol
{
    /** Protocol version carried in every frame. */
    public static final byte VERSION = 3;
    /** Bindings a connection carries: an era's and the next one's, with room for a change right behind. */
    public static final int MAX_BINDINGS = 4;
    /** Kind byte of HELLO. */
    public static final byte KIND_HELLO = 0x40;
    /** Kind byte of RESPONSE; requests carry an op code below 0x40 here, so the two cannot be confused. */
    public static final byte KIND_RESPONSE = (byte)0x80;
    /** Op code of CREATE_REGION (the word and bulk ops use their OpType ordinal). */
    public static final byte OP_CREATE_REGION = 0x10;
    /** Op code of OPEN_REGION: checks access, plan digest (payload) and existence; the value is the data size. */
    public static final byte OP_OPEN_REGION = 0x11;
    /** Op code of PING: an authenticated round trip that touches no region; the value is the number of regions held. */
    public static final byte OP_PING = 0x12;

    /** Bytes of the length prefix. */
    public static final int LENGTH_PREFIX = 4;
    /** Nonce bytes in HELLO. */
    public static final int NONCE_LENGTH = 16;
    /** HELLO body length. */
    public static final int HELLO_LENGTH = 4 + NONCE_LENGTH;
    /** Tag bytes. */
    public static final int TAG_LENGTH = 32;
    /** Request header length (before payload). */
    public static final int REQUEST_HEADER = 48;
    /** Response header length (before payload). */
    public static final int RESPONSE_HEADER = 24;
    /** Largest payload in either direction. */
    public static final int MAX_PAYLOAD = 64 * 1024;
    /** Largest request body; a length prefix above it is malformed. */
    public static final int MAX_REQUEST = REQUEST_HEADER + MAX_PAYLOAD + TAG_LENGTH;
    /** Largest response body. */
    public static final int MAX_RESPONSE = RESPONSE_HEADER + MAX_PAYLOAD + TAG_LENGTH;

    /** Request field offsets (within the body). */
    public static final int REQ_VERSION = 0;
    /** Request field offsets. */
    public static final int REQ_OP = 1;
    /** Request field offsets: the binding the request uses (u16). */
    public static final int REQ_BINDING = 2;
    /** Request field offsets. */
    public static final int REQ_REQUESTER = 4;
    /** Request field offsets. */
    public static final int REQ_ID = 8;
    /** Request field offsets. */
    public static final int REQ_OWNER = 16;
    /** Request field offsets. */
    public static final int REQ_LENGTH = 20;
    /** Request field offsets. */
    public static final int REQ_OFFSET = 24;
    /** Request field offsets. */
    public static final int REQ_OPERAND1 = 32;
    /** Request field offsets. */
    public static final int REQ_OPERAND2 = 40;

    /** Response field offsets (within the body). */
    public static final int RSP_VERSION = 0;
    /** Response field offsets. */
    public static final int RSP_KIND = 1;
    /** Response field offsets. */
    public static final int RSP_STATUS = 2;
    /** Response field offsets. */
    public static final int RSP_PAYLOAD_LENGTH = 4;
    /** Offset of the response's flags: {@link #FLAG_OWNER_CONNECTED}. */
    public static final int RSP_FLAGS = 3;
    /**
     * Response flag: the owner the request named has an authenticated connection to this daemon open
     * now (its node's JVM runs; the kernel closes the connection when it dies). Clear when it has none,
     * and in answers about no owner.
     */
    public static final byte FLAG_OWNER_CONNECTED = 1;
    /** Response field offsets. */
    public static final int RSP_ID = 8;
    /** Response field offsets. */
    public static final int RSP_VALUE = 16;

    private MemdProtocol()
    {
    }

    /**
     * Computes the tag of {@code body[start, start + length)} into {@code tagOut} at {@code tagOffset}.
     * The buffer's position and limit are restored.
     */
    public static void tag(
        final Mac mac,
        final byte[] nonce,
        final ByteBuffer buffer,
        final int start,
        final int length,
        final byte[] tagOut,
        final int tagOffset)
    {
        final int position = buffer.position();
        final int limit = buffer.limit();
        try
        {
            mac.update(nonce);
            buffer.limit(start + length).position(start);
            mac.update(buffer);
            mac.doFinal(tagOut, tagOffset);
        }
        catch (final ShortBufferException ex)
        {
            throw new IllegalStateException("tag buffer too short", ex);
        }
        finally
        {
            buffer.limit(limit).position(position);
        }
    }

    /**
     * Checks the tag that follows {@code body[start, start + length)}, in constant time.
     *
     * @param scratch at least {@link #TAG_LENGTH} bytes, reused to avoid allocation.
     */
    public static boolean verify(
        final Mac mac, final byte[] nonce, final ByteBuffer buffer, final int start, final int length,
        final byte[] scratch)
    {
        tag(mac, nonce, buffer, start, length, scratch, 0);
        int diff = 0;
        for (int i = 0; i < TAG_LENGTH; i++)
        {
            diff |= scratch[i] ^ buffer.get(start + length + i);
        }
        return diff == 0;
    }
}
