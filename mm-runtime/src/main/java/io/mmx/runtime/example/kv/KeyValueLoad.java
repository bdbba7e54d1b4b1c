package io.mmx.runtime.example.kv;

import io.mmx.runtime.node.MmxNode;
import io.mmx.runtime.history.HistoryRecorder;
import io.mmx.runtime.history.Operation;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Client threads issuing PUT, GET and CAS one at a time each on a few keys, recording every call
 * in a {@link HistoryRecorder}: a timed-out call is recorded with an unknown outcome. The history
 * is then checked for linearizability ({@code io.mmx.runtime.history.LinearizabilityChecker}); the
 * demo's restart mode and the multi-JVM tests use it.
 */
public final class KeyValueLoad implements AutoCloseable
{
    private static final String[] KEYS = {"a", "b", "c", "d", "e", "f"};

    private final KeyValueClient kv;
    private final HistoryRecorder history = new HistoryRecorder(System::nanoTime);
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong unknown = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;

    /** Starts {@code clients} threads submitting through {@code node}, their choices drawn from {@code seed}. */
    public KeyValueLoad(final MmxNode node, final int clients, final long seed)
    {
        this(new KeyValueClient(node), clients, seed);
    }

    /** Starts {@code clients} threads calling through {@code kv}, their choices drawn from {@code seed}. */
    public KeyValueLoad(final KeyValueClient kv, final int clients, final long seed)
    {
        this.kv = kv;
        for (int c = 0; c < clients; c++)
        {
            final int client = c;
            final Thread t = new Thread(() -> run(client, new Random(seed * 31 + client)), "kv-client-" + c);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    private void run(final int client, final Random random)
    {
        long i = 0;
        final long[] lastSeen = new long[KEYS.length];
        java.util.Arrays.fill(lastSeen, KeyValueCommand.ABSENT);
        while (running)
        {
            final int k = random.nextInt(KEYS.length);
            final String key = KEYS[k];
            final int choice = random.nextInt(10);
            final HistoryRecorder.Handle h;
            final java.util.concurrent.CompletableFuture<Long> f;
            if (choice < 4)
            {
                final long value = ((long)client << 32) | ++i;
                h = history.invoke(client, Operation.Kind.PUT, key, Long.toString(value), null);
                f = kv.put(key, value);
            }
            else if (choice < 8)
            {
                h = history.invoke(client, Operation.Kind.GET, key, null, null);
                f = kv.get(key);
            }
            else
            {
                final long value = ((long)client << 32) | ++i;
                final long expected = lastSeen[k];
                h = history.invoke(client, Operation.Kind.CAS, key, Long.toString(value), text(expected));
                f = kv.compareAndSet(key, expected, value);
            }
            try
            {
                final long reply = f.get(8, TimeUnit.SECONDS);
                if (choice < 4)
                {
                    history.complete(h, null);
                }
                else if (choice < 8)
                {
                    history.complete(h, text(reply));
                    lastSeen[k] = reply;
                }
                else
                {
                    history.complete(h, Boolean.toString(reply == KeyValueCommand.CAS_OK));
                }
                completed.incrementAndGet();
            }
            catch (final TimeoutException | ExecutionException ex)
            {
                history.completeUnknown(h);
                unknown.incrementAndGet();
            }
            catch (final InterruptedException ex)
            {
                history.completeUnknown(h);
                return;
            }
        }
    }

    private static String text(final long v)
    {
        return v == KeyValueCommand.ABSENT ? null : Long.toString(v);
    }

    /** Calls completed with a known outcome. */
    public long completed()
    {
        return completed.get();
    }

    /** Calls whose outcome is unknown (timed out). */
    public long unknown()
    {
        return unknown.get();
    }

    /** The recorded history. */
    public HistoryRecorder history()
    {
        return history;
    }

    /** Stops the clients (each finishes its call in progress) and waits for them. */
    @Override
    public void close()
    {
        running = false;
        try
        {
            for (final Thread t : threads)
            {
                t.join(20_000);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
