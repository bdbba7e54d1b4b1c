package io.mmx.runtime.example.kv;

import io.mmx.runtime.node.MmxNode;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.CompletableFuture;

/**
 * Client calls of the key-value store, through a node of the cluster or from outside it
 * ({@link io.mmx.runtime.client.MmxClient}). Thread-safe; each call submits one command.
 */
public final class KeyValueClient
{
    private final java.util.function.Function<byte[], CompletableFuture<Long>> submit;

    /** @param node the node that submits the commands. */
    public KeyValueClient(final MmxNode node)
    {
        this.submit = node::submit;
    }

    /**
     * Calls through an outside client: each call blocks until its reply (the future is complete on
     * return), and fails with the client's {@link io.mmx.runtime.client.MmxClientException}.
     */
    public KeyValueClient(final io.mmx.runtime.client.MmxClient client)
    {
        this.submit = command ->
        {
            try
            {
                return CompletableFuture.completedFuture(new UnsafeBuffer(client.execute(command))
                    .getLong(0, java.nio.ByteOrder.LITTLE_ENDIAN));
            }
            catch (final io.mmx.runtime.client.MmxClientException ex)
            {
                return CompletableFuture.failedFuture(ex);
            }
        };
    }

    /** Sets {@code key}; completes with the previous value or {@link KeyValueCommand#ABSENT}. */
    public CompletableFuture<Long> put(final String key, final long value)
    {
        return submit(KeyValueCommand.PUT, key, value, 0);
    }

    /** Reads {@code key} through the log; completes with its value or {@link KeyValueCommand#ABSENT}. */
    public CompletableFuture<Long> get(final String key)
    {
        return submit(KeyValueCommand.GET, key, 0, 0);
    }

    /** Sets {@code key} to {@code value} if it holds {@code expected} ({@code ABSENT}: if unset); completes with 1 or 0. */
    public CompletableFuture<Long> compareAndSet(final String key, final long expected, final long value)
    {
        return submit(KeyValueCommand.CAS, key, value, expected);
    }

    /** Removes {@code key}; completes with the previous value or {@code ABSENT}. */
    public CompletableFuture<Long> delete(final String key)
    {
        return submit(KeyValueCommand.DELETE, key, 0, 0);
    }

    private CompletableFuture<Long> submit(final byte op, final String key, final long value, final long expected)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[KeyValueCommand.MAX_LENGTH]);
        final int length = KeyValueCommand.encode(buffer, op, key, value, expected);
        final byte[] command = new byte[length];
        buffer.getBytes(0, command);
        return submit.apply(command);
    }
}
