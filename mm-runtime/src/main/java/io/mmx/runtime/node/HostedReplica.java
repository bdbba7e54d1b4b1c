package io.mmx.runtime.node;

import io.mmx.membership.MembershipNode;
import io.mmx.membership.neighbour.FabricHeartbeats;
import io.mmx.runtime.core.Message;
import io.mmx.runtime.host.HostedProcess;
import org.agrona.DirectBuffer;

/** A {@link ProcessReplica} as its host drives it, with the heartbeats its membership polls. */
final class HostedReplica implements HostedProcess
{
    private final ProcessReplica replica;
    private final int[] neighbours;
    private final FabricHeartbeats heartbeats;

    HostedReplica(final ProcessReplica replica, final int[] neighbours, final FabricHeartbeats heartbeats)
    {
        this.replica = replica;
        this.neighbours = neighbours;
        this.heartbeats = heartbeats;
    }

    @Override
    public int id()
    {
        return replica.id();
    }

    @Override
    public int[] neighbours()
    {
        return neighbours;
    }

    @Override
    public FabricHeartbeats heartbeats()
    {
        return heartbeats;
    }

    @Override
    public void start(final MembershipNode membership, final long tick)
    {
        replica.start(membership, tick);
    }

    @Override
    public int leader()
    {
        return replica.leader();
    }

    @Override
    public int pollMemory()
    {
        return replica.pollMemory();
    }

    @Override
    public boolean memoryPending()
    {
        return replica.memoryPending();
    }

    @Override
    public boolean syncLeader(final long tick)
    {
        return replica.syncLeader(tick);
    }

    @Override
    public void onTick(final long tick)
    {
        replica.onTick(tick);
    }

    @Override
    public long[] eraReportDue(final long tick)
    {
        return replica.eraReportDue(tick);
    }

    @Override
    public void onMessage(final Message message, final long tick)
    {
        replica.onMessage(message, tick);
    }

    @Override
    public void onTransferFrame(final int type, final int src, final DirectBuffer buffer, final int offset,
        final int length)
    {
        replica.onTransferFrame(type, src, buffer, offset, length);
    }

    @Override
    public boolean propose(final long[] words, final int offset)
    {
        return replica.core().propose(words, offset);
    }

    @Override
    public void flushProposals()
    {
        replica.core().flushProposals();
    }

    @Override
    public boolean forward(final int leader, final long[] words, final int offset, final int count)
    {
        return replica.forward(leader, words, offset, count);
    }

    @Override
    public boolean applied(final int origin, final int incarnation, final long counter)
    {
        return replica.applied(origin, incarnation, counter);
    }

    @Override
    public boolean stateReady()
    {
        return replica.stateReady();
    }

    @Override
    public int forwardCapacity()
    {
        return replica.forwardCapacity();
    }
}
