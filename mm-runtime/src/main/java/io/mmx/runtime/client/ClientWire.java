package io.mmx.runtime.client;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The frames between an outside client and a member: mmx frames (header, SipHash tag) signed with
 * the client key ({@link ClientKey}), on their own Aeron stream at each member's UDP endpoint, so a
 * client's frames never reach the protocol and a client cannot act as a member. All fields
 * little-endian.
 *
 * <pre>
 * REQUEST (client to member), one chunk of a command:
 *  0 i64 clientId      the session (51 bits)
 *  8 i64 seq           1.. per session, one command at a time
 * 16 i32 totalLength   of the whole command
 * 20 i32 chunkOffset   a multiple of {@link #CHUNK_BYTES}
 * 24 u16 n             then n ASCII bytes: the client's reply endpoint HOST:PORT
 * .. the chunk's bytes (CHUNK_BYTES, or the rest of the command)
 *
 * REPLY (member to client):
 *  0 i64 clientId
 *  8 i64 seq
 * 16 u8  status        {@link #APPLIED}, {@link #ACCEPTED}, {@link #REFUSED}, {@link #STALE}
 * 17 u16 n             then n ASCII bytes: the endpoint of the leader this member knows (0: none)
 * .. APPLIED: the state machine's reply bytes; REFUSED: the reason, UTF-8
 * </pre>
 */
public final class ClientWire
{
    /** Aeron stream of client frames at a member's endpoint (the members' own frames use another). */
    public static final int STREAM_ID = 0x6D6E;
    /** A chunk of a command. */
    public static final int REQUEST = 0x40;
    /** A member's answer. */
    public static final int REPLY = 0x41;
    /** Bytes of command per request frame. */
    public static final int CHUNK_BYTES = 4096;
    /** Longest reply a state machine may give a client. */
    public static final int MAX_REPLY_BYTES = 4096;
    /** Longest endpoint text. */
    public static final int MAX_ENDPOINT_BYTES = 255;
    /** Longest frame either way, header and tag included: fits an Aeron message of a 64 KiB term. */
    public static final int MAX_FRAME_BYTES = 8192;
    /** Term length of client publications, both ways (Aeron's smallest). */
    public static final int TERM_LENGTH_BYTES = 64 * 1024;
    /** Largest client id: 51 bits (19 in a command's origin field, 32 in its incarnation field). */
    public static final long MAX_CLIENT_ID = (1L << 51) - 1;
    /** Largest sequence number of one session (44-bit counters, 16 bits of them name the fragment). */
    public static final long MAX_SEQ = (1L << 28) - 1;

    /** The command was applied; the reply follows. */
    public static final int APPLIED = 0;
    /** The member holds the whole command and is getting it committed: keep waiting. */
    public static final int ACCEPTED = 1;
    /** The member did not take the command (too large, too busy, malformed); nothing was proposed. */
    public static final int REFUSED = 2;
    /** The session has applied a later command: this one never will be. */
    public static final int STALE = 3;

    /** Offset of the reply endpoint's length in a request. */
    public static final int REQUEST_HEADER_BYTES = 26;
    /** Offset of the leader endpoint's length in a reply. */
    public static final int REPLY_HEADER_BYTES = 19;

    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private ClientWire()
    {
    }

    /** Writes a request chunk's payload; returns its length. */
    public static int encodeRequest(final MutableDirectBuffer dst, final long clientId, final long seq,
        final byte[] command, final int chunkOffset, final byte[] replyEndpoint)
    {
        dst.putLong(0, clientId, LE);
        dst.putLong(8, seq, LE);
        dst.putInt(16, command.length, LE);
        dst.putInt(20, chunkOffset, LE);
        dst.putShort(24, (short)replyEndpoint.length, LE);
        dst.putBytes(REQUEST_HEADER_BYTES, replyEndpoint);
        final int at = REQUEST_HEADER_BYTES + replyEndpoint.length;
        final int chunk = Math.min(CHUNK_BYTES, command.length - chunkOffset);
        dst.putBytes(at, command, chunkOffset, chunk);
        return at + chunk;
    }

    /** Writes a reply's payload; returns its length. */
    public static int encodeReply(final MutableDirectBuffer dst, final long clientId, final long seq, final int status,
        final byte[] leaderEndpoint, final byte[] body)
    {
        dst.putLong(0, clientId, LE);
        dst.putLong(8, seq, LE);
        dst.putByte(16, (byte)status);
        dst.putShort(17, (short)leaderEndpoint.length, LE);
        dst.putBytes(REPLY_HEADER_BYTES, leaderEndpoint);
        dst.putBytes(REPLY_HEADER_BYTES + leaderEndpoint.length, body);
        return REPLY_HEADER_BYTES + leaderEndpoint.length + body.length;
    }

    /**
     * A publication of client frames to {@code endpoint} (HOST:PORT), or null when the media driver
     * refuses it (an endpoint it cannot resolve): the caller drops what it meant to send.
     */
    public static io.aeron.ExclusivePublication publication(final io.aeron.Aeron aeron, final String endpoint)
    {
        try
        {
            return aeron.addExclusivePublication("aeron:udp?endpoint=" + endpoint + "|term-length=" + TERM_LENGTH_BYTES,
                STREAM_ID);
        }
        catch (final RuntimeException ex)
        {
            return null;
        }
    }

    /** ASCII bytes of an endpoint text. */
    public static byte[] ascii(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** A request chunk, checked field by field; {@link #parse} says why not. */
    public static final class Request
    {
        /** The client's id (its session at the members). */
        public long clientId;
        /** The command's sequence number within the client's session. */
        public long seq;
        /** The whole command's length in bytes, over all its chunks. */
        public int totalLength;
        /** Where in the command this chunk starts, in bytes. */
        public int chunkOffset;
        /** Where the reply goes, {@code host:port}. */
        public String replyEndpoint;
        /** Where this chunk's bytes start in the parsed buffer. */
        public int chunkAt;
        /** This chunk's length in bytes. */
        public int chunkLength;

        /**
         * Reads a request payload, or returns why it is malformed (null when good). A good request
         * names a client id and sequence in range, a chunk offset on a chunk boundary inside the
         * command, a chunk of exactly the bytes that offset holds, and an endpoint HOST:PORT.
         */
        public String parse(final DirectBuffer buffer, final int offset, final int length, final int maxCommandBytes)
        {
            if (length < REQUEST_HEADER_BYTES)
            {
                return "short request";
            }
            clientId = buffer.getLong(offset, LE);
            seq = buffer.getLong(offset + 8, LE);
            totalLength = buffer.getInt(offset + 16, LE);
            chunkOffset = buffer.getInt(offset + 20, LE);
            final int n = buffer.getShort(offset + 24, LE) & 0xFFFF;
            if (clientId < 0 || clientId > MAX_CLIENT_ID || seq < 1 || seq > MAX_SEQ)
            {
                return "client id or sequence out of range";
            }
            if (n < 3 || n > MAX_ENDPOINT_BYTES || REQUEST_HEADER_BYTES + n > length)
            {
                return "reply endpoint of " + n + " bytes";
            }
            replyEndpoint = buffer.getStringWithoutLengthAscii(offset + REQUEST_HEADER_BYTES, n);
            final int colon = replyEndpoint.lastIndexOf(':');
            if (colon < 1 || !replyEndpoint.substring(colon + 1).matches("[0-9]{1,5}"))
            {
                return "reply endpoint '" + replyEndpoint + "' is not HOST:PORT";
            }
            if (totalLength < 0 || totalLength > maxCommandBytes)
            {
                return "command of " + totalLength + " bytes; this cluster takes at most " + maxCommandBytes +
                    " (raise maxCommandBytes on every node for more)";
            }
            if (chunkOffset < 0 || chunkOffset % CHUNK_BYTES != 0 || (chunkOffset >= totalLength && chunkOffset > 0))
            {
                return "chunk offset " + chunkOffset + " outside a command of " + totalLength + " bytes";
            }
            chunkAt = offset + REQUEST_HEADER_BYTES + n;
            chunkLength = length - REQUEST_HEADER_BYTES - n;
            if (chunkLength != Math.min(CHUNK_BYTES, totalLength - chunkOffset))
            {
                return "chunk of " + chunkLength + " bytes at " + chunkOffset + " of " + totalLength;
            }
            return null;
        }
    }
}
