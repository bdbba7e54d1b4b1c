package io.mmx.rdma.memd;

import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.CompletionSink;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.fabric.RegionLink;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.ProcessKey;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A process's link to one owner's region of one plan on memd: one binding of the authenticated TCP
 * session ({@link MemdSession}) from the process to the daemon holding the owner's regions. The
 * session is the memd counterpart of a reliable-connected queue pair on a plan edge; links from a
 * {@link MemdSessions} pool share it across plans, so a live plan change keeps the sessions of the
 * edges both plans share. A link opened on its own ({@link #MemdRegionLink}) has a session of its own.
 *
 * <p>Every operation on this link reaches the owner's region of this plan, granted by that plan's
 * edges. A broken connection is reopened from {@link #doWork} at most once per second; operations in
 * flight on it complete {@code NOT_CONNECTED}.
 */
public final class MemdRegionLink implements RegionLink
{
    private final MemdSession session;
    private final int binding;
    private boolean closed;

    /**
     * Opens a session of its own (connect and handshake, bounded by {@code connectTimeoutMs}) as the
     * process {@code key} authenticates, and the owner's region of {@code plan} on it. A daemon that
     * cannot be reached gives a link in state NOT_CONNECTED that retries later.
     */
    public MemdRegionLink(
        final ProcessKey key,
        final int owner,
        final InetSocketAddress daemon,
        final PlanDigest plan,
        final int connectTimeoutMs)
    {
        this(new MemdSession(null, key, owner, daemon, connectTimeoutMs, true), plan, 0);
    }

    MemdRegionLink(final MemdSession session, final PlanDigest plan, final int era)
    {
        this.session = session;
        this.binding = session.bind(plan, era);
    }

    /**
     * One authenticated round trip that touches no region ({@link MemdProtocol#OP_PING}), as the
     * process {@code key} authenticates: whether a memd serves at {@code daemon} under this cluster key.
     * Blocking, bounded by {@code timeoutMs} for the connect and for each read.
     *
     * @return the number of regions the daemon holds.
     * @throws IOException naming why it was not served (unreachable, not memd, wrong key, timeout).
     */
    public static long ping(final InetSocketAddress daemon, final ProcessKey key, final int timeoutMs)
        throws IOException
    {
        try (MemdSession session = new MemdSession(null, key, key.process(), daemon, timeoutMs, false))
        {
            session.handshake(); // its failure (a timeout, a peer that is not memd) is the answer
            final long[] value = new long[1];
            final OpStatus status = session.call(MemdProtocol.OP_PING, null, 0, 0, value);
            if (status != OpStatus.OK)
            {
                throw new IOException(status == OpStatus.BAD_CLUSTER_KEY ?
                    "memd " + daemon + " does not accept the key of process " + key.process() +
                    ": use the cluster's key file" : "memd " + daemon + " answered " + status);
            }
            return value[0];
        }
    }

    /**
     * Asks the daemon to create {@code self}'s region of the plan {@code plan}, or confirms the existing
     * one (after a restart). Each plan has its own region. Blocking, for start-up only.
     *
     * @return OK, or the refusal (REGION_MISMATCH for a plan the daemon does not know or another size,
     *     BAD_CLUSTER_KEY, TIMEOUT, ...).
     */
    public static OpStatus createRegion(
        final InetSocketAddress daemon,
        final ClusterKey key,
        final int self,
        final long dataBytes,
        final PlanDigest plan,
        final long timeoutNs)
    {
        return createRegion(daemon, key.processKey(self), dataBytes, plan, timeoutNs);
    }

    /**
     * Creates the region of the process {@code key} authenticates, or confirms the existing one;
     * see {@link #createRegion(InetSocketAddress, ClusterKey, int, long, PlanDigest, long)}.
     */
    public static OpStatus createRegion(
        final InetSocketAddress daemon,
        final ProcessKey key,
        final long dataBytes,
        final PlanDigest plan,
        final long timeoutNs)
    {
        return createRegion(daemon, key, dataBytes, plan, 0, timeoutNs);
    }

    /**
     * Creates the region of the process {@code key} authenticates under {@code plan} in {@code era}, or
     * confirms the existing one: each era has regions of its own, even for a plan of the same graph as
     * the era before.
     */
    public static OpStatus createRegion(
        final InetSocketAddress daemon,
        final ProcessKey key,
        final long dataBytes,
        final PlanDigest plan,
        final int era,
        final long timeoutNs)
    {
        try (MemdSession session = new MemdSession(null, key, key.process(), daemon,
            (int)Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNs)), true))
        {
            return session.connected() ? session.call(MemdProtocol.OP_CREATE_REGION, plan, era, dataBytes, null) :
                OpStatus.NOT_CONNECTED;
        }
        catch (final IOException ex)
        {
            return OpStatus.NOT_CONNECTED;
        }
    }

    @Override
    public int owner()
    {
        return session.owner();
    }

    /** The plan whose region of the owner this link reaches. */
    public PlanDigest plan()
    {
        return session.plan(binding);
    }

    @Override
    public OpStatus state()
    {
        return closed ? OpStatus.CLOSED : session.state(binding);
    }

    @Override
    public String stateMessage()
    {
        return closed ? "link to process " + owner() + " is closed" : session.stateMessage(binding);
    }

    @Override
    public void submit(
        final long correlationId,
        final OpType type,
        final long offset,
        final long operand1,
        final long operand2,
        final MutableDirectBuffer dst,
        final DirectBuffer src,
        final int bufOffset,
        final int length,
        final CompletionSink sink)
    {
        if (closed)
        {
            sink.complete(correlationId, OpStatus.CLOSED, 0, null, 0);
            return;
        }
        session.submit(binding, correlationId, type, offset, operand1, operand2, src, bufOffset, length, sink);
    }

    @Override
    public int doWork(final CompletionSink sink)
    {
        // Answers go to the sink each operation was submitted with: the session may serve other plans' links.
        return closed ? 0 : session.doWork();
    }

    /** Releases this plan's binding; the session closes with its last one. */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            session.release(binding);
        }
    }
}
