package io.mmx.runtime.core;

/**
 * Memory operation ids: purpose (8 bits) | owner index (16 bits) | sequence (40 bits). Each owner
 * has at most one operation outstanding and ignores a completion whose id it no longer expects.
 */
final class OpIds
{
    static final int DRIVER = 1;
    static final int DECIDED_LOG = 2;
    static final int CATCHUP_READ = 3;
    static final int HEARTBEAT = 4;
    static final int PROPOSER_ROUND = 5;
    static final int RECOVERY = 6;
    static final int LOG_RELOAD = 7;

    private static final long SEQ_MASK = (1L << 40) - 1;

    private OpIds()
    {
    }

    static long make(final int purpose, final int index, final long seq)
    {
        assert purpose > 0 && purpose < 256 && index >= 0 && index < 65536;
        return ((long)purpose << 56) | ((long)index << 40) | (seq & SEQ_MASK);
    }

    static int purpose(final long opId)
    {
        return (int)(opId >>> 56);
    }

    static int index(final long opId)
    {
        return (int)((opId >>> 40) & 0xFFFF);
    }
}
