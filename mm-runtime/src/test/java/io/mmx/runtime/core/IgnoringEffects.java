package io.mmx.runtime.core;

/** Effects that do nothing: a test double overrides only the effects its test looks at. */
class IgnoringEffects implements Effects
{
    @Override
    public void send(final int to, final Message message)
    {
    }

    @Override
    public void broadcast(final Message message)
    {
    }

    @Override
    public void memory(final long opId, final MemoryOpKind kind, final int region, final int offsetWords,
        final int lengthWords, final long expected, final long value, final long[] payload)
    {
    }

    @Override
    public void decided(final long slot, final long[] value)
    {
    }

    @Override
    public void skipped(final long fromSlot, final long toSlot)
    {
    }

    @Override
    public void status(final Status status)
    {
    }
}
