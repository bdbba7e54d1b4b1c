package io.mmx.perf.consensus;

import org.agrona.DirectBuffer;

import java.nio.ByteOrder;
import java.util.BitSet;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A trivial {@link ReplicatedLog} for testing the load driver: one executor thread "commits" each command
 * by handing its id back, and the log keeps its own count of what is outstanding so the driver's
 * accounting can be checked against it. Knobs make it refuse submissions, repeat commits or stop committing.
 */
class ExecutorLog implements ReplicatedLog
{
    private final String name;
    private final int members;
    private final ExecutorService executor = Executors.newSingleThreadExecutor();
    private final Queue<Long> committed = new ConcurrentLinkedQueue<>();
    private final BitSet reported = new BitSet();
    private int outstanding;
    private int maxOutstanding;
    private long submitted;
    private long submitCalls;
    private long reportedCount;
    private long payloadMismatches;
    int refuseEvery;
    int duplicateEvery;
    boolean commitNothing;

    ExecutorLog()
    {
        this("executor", 1);
    }

    ExecutorLog(final String name, final int members)
    {
        this.name = name;
        this.members = members;
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public int members()
    {
        return members;
    }

    @Override
    public void start()
    {
    }

    @Override
    public boolean submit(final long commandId, final DirectBuffer payload, final int offset, final int length)
    {
        submitCalls++;
        if (refuseEvery > 0 && submitCalls % refuseEvery == 0)
        {
            return false;
        }
        if (payload.getLong(offset, ByteOrder.LITTLE_ENDIAN) != commandId)
        {
            payloadMismatches++;
        }
        submitted++;
        outstanding++;
        maxOutstanding = Math.max(maxOutstanding, outstanding);
        if (!commitNothing)
        {
            executor.execute(() ->
            {
                committed.add(commandId);
                if (duplicateEvery > 0 && commandId % duplicateEvery == 0)
                {
                    committed.add(commandId);
                }
            });
        }
        return true;
    }

    @Override
    public int poll(final CommitListener listener)
    {
        int work = 0;
        Long commandId;
        while ((commandId = committed.poll()) != null)
        {
            if (!reported.get(commandId.intValue()))
            {
                reported.set(commandId.intValue());
                reportedCount++;
                outstanding--;
            }
            listener.onCommitted(commandId);
            work++;
        }
        return work;
    }

    @Override
    public void close()
    {
        executor.shutdownNow();
        try
        {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    int maxOutstanding()
    {
        return maxOutstanding;
    }

    int outstanding()
    {
        return outstanding;
    }

    long submitted()
    {
        return submitted;
    }

    long reportedCount()
    {
        return reportedCount;
    }

    long payloadMismatches()
    {
        return payloadMismatches;
    }
}
