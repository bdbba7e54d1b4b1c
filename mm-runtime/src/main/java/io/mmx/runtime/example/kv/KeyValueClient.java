package io.mmx.runtime.example.kv;

import io.mmx.runtime.node.MmxNode;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.CompletableFuture;

/**
 * Client calls of the key-value store through a node. Thread-safe; each call submits one command.
 */
public final class KeyValueClient
{
    private final MmxNode node;

    /** @param node the node that submits the commands. */
    public KeyValueClient(final MmxNode node)
    {
        this.node = node;
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
        return node.submit(buffer, 0, length);
    }
}
