package io.mmx.rdma.fabric;

/**
 * The outcome of an operation run at once ({@link MemoryFabric#wordNow}, {@link MemoryFabric#bulkNow}):
 * its status and the word (a bulk operation's: its length in bytes). Mutable and reused by its caller, so the inline path does not allocate. One thread.
 */
public final class WordOutcome
{
    private OpStatus status = OpStatus.OK;
    private long value;

    /** @return the outcome of the last operation; {@link #value()} is meaningful only for {@link OpStatus#OK}. */
    public OpStatus status()
    {
        return status;
    }

    /** @return the word read, or the word before a CAS or fetch-and-add. */
    public long value()
    {
        return value;
    }

    void set(final OpStatus status, final long value)
    {
        this.status = status;
        this.value = value;
    }
}
