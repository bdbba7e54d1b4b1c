package io.mmx.rdma.fabric;

/**
 * A connected link to {@code owner}'s region for tests: its state is OK, it does no work and closing it
 * does nothing. A test overrides {@code submit} (and what else it watches).
 */
abstract class StubLink implements RegionLink
{
    private final int owner;

    StubLink(final int owner)
    {
        this.owner = owner;
    }

    @Override
    public int owner()
    {
        return owner;
    }

    @Override
    public OpStatus state()
    {
        return OpStatus.OK;
    }

    @Override
    public String stateMessage()
    {
        return "stub";
    }

    @Override
    public int doWork(final CompletionSink sink)
    {
        return 0;
    }

    @Override
    public void close()
    {
    }
}
