package io.mmx.runtime.example.kv;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The key-value store's command format, 32 bytes at most (the node's default command size):
 *
 * <pre>
 *  0 u8  op (1 PUT, 2 GET, 3 CAS, 4 DELETE)
 *  1 u8  key length (1..14, UTF-8)
 *  2 i64 value (PUT value, CAS new value)
 * 10 i64 expected (CAS only)
 * 18     key bytes
 * </pre>
 */
public final class KeyValueCommand
{
    /** Operation: set a key's value. */
    public static final byte PUT = 1;
    /** Operation: read a key's value. */
    public static final byte GET = 2;
    /** Operation: set a key's value if it holds the expected one. */
    public static final byte CAS = 3;
    /** Operation: remove a key. */
    public static final byte DELETE = 4;
    /** Longest key in UTF-8 bytes. */
    public static final int MAX_KEY_BYTES = 14;
    /** Longest command. */
    public static final int MAX_LENGTH = 18 + MAX_KEY_BYTES;
    /** The reply that means "no value" (GET of an absent key, PUT or DELETE where there was none). */
    public static final long ABSENT = Long.MIN_VALUE;
    /** CAS reply: the key held the expected value and now holds the new one. */
    public static final long CAS_OK = 1;
    /** CAS reply: the key held another value; nothing changed. */
    public static final long CAS_FAILED = 0;

    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private KeyValueCommand()
    {
    }

    /** Encodes a command into {@code buffer} at 0; returns its length. */
    public static int encode(final MutableDirectBuffer buffer, final byte op, final String key, final long value,
        final long expected)
    {
        final byte[] k = key.getBytes(StandardCharsets.UTF_8);
        if (k.length < 1 || k.length > MAX_KEY_BYTES)
        {
            throw new IllegalArgumentException("key '" + key + "' is " + k.length + " bytes; keys are 1.." +
                MAX_KEY_BYTES + " UTF-8 bytes");
        }
        buffer.putByte(0, op);
        buffer.putByte(1, (byte)k.length);
        buffer.putLong(2, value, LE);
        buffer.putLong(10, expected, LE);
        buffer.putBytes(18, k);
        return 18 + k.length;
    }

    static byte op(final DirectBuffer buffer, final int offset)
    {
        return buffer.getByte(offset);
    }

    static long value(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + 2, LE);
    }

    static long expected(final DirectBuffer buffer, final int offset)
    {
        return buffer.getLong(offset + 10, LE);
    }

    /** The key, or null if the command is malformed. */
    static String key(final DirectBuffer buffer, final int offset, final int length)
    {
        final int keyLength = buffer.getByte(offset + 1) & 0xFF;
        if (keyLength < 1 || keyLength > MAX_KEY_BYTES || 18 + keyLength != length)
        {
            return null;
        }
        return buffer.getStringWithoutLengthUtf8(offset + 18, keyLength);
    }
}
