package io.mmx.runtime.host;

import java.util.concurrent.CompletableFuture;

/**
 * A command submitted through a host, on its way: queued by any thread with
 * {@link ProcessHost#enqueue(Submission)}, then routed and tracked on the host's thread until it is
 * applied at the host's first process (the future completes with the reply) or times out.
 */
public final class Submission
{
    final CompletableFuture<Long> future = new CompletableFuture<>();
    final byte[] payload;
    final boolean probe;
    long counter;
    long[] words;
    long deadlineTick;
    long routedTick = Long.MIN_VALUE;
    int routedTo = -1;

    /**
     * @param payload the command's bytes (at most what the core's proposal width carries).
     * @param probe   a probe: ordered and decided, never applied; {@code payload} is ignored.
     */
    public Submission(final byte[] payload, final boolean probe)
    {
        this.payload = payload;
        this.probe = probe;
    }

    /** @return completed with the state machine's reply (a probe: its log index), or failed. */
    public CompletableFuture<Long> future()
    {
        return future;
    }
}
