package io.mmx.runtime.host;

import io.mmx.membership.MembershipConfig;
import io.mmx.membership.MembershipListener;
import io.mmx.membership.neighbour.HostLiveness;
import io.mmx.membership.node.HostedMembers;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.runtime.core.CoreConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Everything a {@link ProcessHost} is made of: its ports, its processes and its settings, checked
 * together by {@link #conclude()}, which names every problem at once.
 */
public final class HostContext
{
    private HostTransport transport;
    private CoreConfig core;
    private HostedProcess[] processes;
    private MembershipConfig membership;
    private PlanDigest planDigest;
    private int[] hostOf;
    private HostLiveness liveness = HostLiveness.NONE;
    private MembershipListener membershipListener = MembershipListener.NO_OP;
    private HostClients clients = HostClients.NONE;
    private AtomicInteger pendingCount = new AtomicInteger();
    private long seed;
    private long tickNs;
    private int incarnation;
    private long submitTimeoutNs;
    private int maxPending;
    private int era;
    private ProcessHost predecessor;
    private long switchWaitNs = DEFAULT_SWITCH_WAIT_NS;

    /** Default of {@link #switchWaitNs(long)}. */
    public static final long DEFAULT_SWITCH_WAIT_NS = 1_000_000_000L;

    /** Frames in and out (required). */
    public HostContext transport(final HostTransport transport)
    {
        this.transport = transport;
        return this;
    }

    /** The protocol's configuration, concluded (required). */
    public HostContext core(final CoreConfig core)
    {
        this.core = core;
        return this;
    }

    /**
     * The processes this host runs, not yet started (required, at least one); the first is the
     * origin of this host's submissions and completes them.
     */
    public HostContext processes(final HostedProcess... processes)
    {
        this.processes = processes.clone();
        return this;
    }

    /** Membership's configuration (required). */
    public HostContext membership(final MembershipConfig membership)
    {
        this.membership = membership;
        return this;
    }

    /** The plan's content hash (required). */
    public HostContext planDigest(final PlanDigest planDigest)
    {
        this.planDigest = planDigest;
        return this;
    }

    /** The host of every process of the plan, indexed by process id: processes of one host stop together (required). */
    public HostContext hostOf(final int... hostOf)
    {
        this.hostOf = hostOf.clone();
        return this;
    }

    /** What the operating system says of other hosts; {@link HostLiveness#NONE} unless set. */
    public HostContext liveness(final HostLiveness liveness)
    {
        this.liveness = liveness;
        return this;
    }

    /** Membership's events of every hosted process; none unless set. */
    public HostContext membershipListener(final MembershipListener listener)
    {
        this.membershipListener = listener;
        return this;
    }

    /** Outside clients; {@link HostClients#NONE} unless set. */
    public HostContext clients(final HostClients clients)
    {
        this.clients = clients;
        return this;
    }

    /** Submissions queued or awaiting commit, shared with the submitting threads; a fresh counter unless set. */
    public HostContext pendingCount(final AtomicInteger pendingCount)
    {
        this.pendingCount = pendingCount;
        return this;
    }

    /** Membership's base seed (each process gets seed ^ its id). */
    public HostContext seed(final long seed)
    {
        this.seed = seed;
        return this;
    }

    /** Nanoseconds per tick, at least {@link HostedMembers#MIN_TICK_NS} (required). */
    public HostContext tickNs(final long tickNs)
    {
        this.tickNs = tickNs;
        return this;
    }

    /** This host's incarnation: submissions of an earlier run are not this run's. */
    public HostContext incarnation(final int incarnation)
    {
        this.incarnation = incarnation;
        return this;
    }

    /** How long a submission may wait for its commit (required, positive). */
    public HostContext submitTimeoutNs(final long submitTimeoutNs)
    {
        this.submitTimeoutNs = submitTimeoutNs;
        return this;
    }

    /** Submissions queued at once (required, positive). */
    public HostContext maxPending(final int maxPending)
    {
        this.maxPending = maxPending;
        return this;
    }

    /** The era of the log this host's cores run (0 unless a plan change or cold start began a later one). */
    public HostContext era(final int era)
    {
        this.era = era;
        return this;
    }

    /**
     * How long after the first of its replicas applied a plan change the host switches to the next
     * era even if others have not (they begin it behind and take a peer's snapshot); at most 60 s.
     */
    public HostContext switchWaitNs(final long switchWaitNs)
    {
        this.switchWaitNs = switchWaitNs;
        return this;
    }

    /**
     * The host of the era before, whose era a plan change ended: this host takes over its queued and
     * pending submissions, its submission counter and its incarnation (retries keep their names, so
     * the carried duplicate filters drop what the old era applied), and the old host stops routing.
     */
    public HostContext predecessor(final ProcessHost predecessor)
    {
        this.predecessor = predecessor;
        return this;
    }

    /**
     * Checks everything at once.
     *
     * @return this.
     * @throws IllegalStateException naming every missing or inconsistent setting.
     */
    public HostContext conclude()
    {
        final List<String> errors = new ArrayList<>();
        require(errors, transport, "transport");
        require(errors, core, "core");
        require(errors, membership, "membership");
        require(errors, planDigest, "planDigest");
        require(errors, liveness, "liveness");
        require(errors, membershipListener, "membershipListener");
        require(errors, clients, "clients");
        require(errors, pendingCount, "pendingCount");
        if (processes == null || processes.length == 0)
        {
            errors.add("no processes: give the host at least one");
        }
        else if (core != null)
        {
            final boolean[] seen = new boolean[core.n()];
            for (final HostedProcess p : processes)
            {
                if (p == null || p.id() < 0 || p.id() >= core.n() || seen[p.id()])
                {
                    errors.add("processes must be distinct processes of the plan (0.." + (core.n() - 1) + "), got " +
                        (p == null ? "null" : "process " + p.id()));
                    break;
                }
                seen[p.id()] = true;
            }
        }
        if (hostOf == null || core != null && hostOf.length != core.n())
        {
            errors.add("hostOf must name the host of each of the plan's " + (core == null ? "" : core.n() + " ") +
                "processes");
        }
        if (tickNs < HostedMembers.MIN_TICK_NS)
        {
            errors.add("tickNs must be at least " + HostedMembers.MIN_TICK_NS + ", got " + tickNs);
        }
        if (submitTimeoutNs <= 0)
        {
            errors.add("submitTimeoutNs must be positive, got " + submitTimeoutNs);
        }
        if (maxPending <= 0)
        {
            errors.add("maxPending must be positive, got " + maxPending);
        }
        if (predecessor != null && processes != null && processes.length > 0 && processes[0] != null &&
            predecessor.origin() != processes[0].id())
        {
            errors.add("the host's first process must stay its submitter across a plan change: it was process " +
                predecessor.origin() + ", now " + processes[0].id() + " (plans that renumber a host's first process " +
                "cannot be changed to live yet)");
        }
        if (switchWaitNs < 0 || switchWaitNs > 60_000_000_000L)
        {
            errors.add("switchWaitNs must be 0..60 s, got " + switchWaitNs + " ns");
        }
        if (predecessor != null && era != predecessor.era() + 1)
        {
            errors.add("the era after the predecessor's " + predecessor.era() + " is " + (predecessor.era() + 1) +
                ", got " + era);
        }
        if (!errors.isEmpty())
        {
            throw new IllegalStateException("the process host's context is incomplete: " + String.join("; ", errors));
        }
        return this;
    }

    private static void require(final List<String> errors, final Object value, final String name)
    {
        if (value == null)
        {
            errors.add(name + " is not set");
        }
    }

    int era()
    {
        return era;
    }

    long switchWaitNs()
    {
        return switchWaitNs;
    }

    ProcessHost predecessor()
    {
        return predecessor;
    }

    HostTransport transport()
    {
        return transport;
    }

    CoreConfig core()
    {
        return core;
    }

    HostedProcess[] processes()
    {
        return processes.clone();
    }

    MembershipConfig membership()
    {
        return membership;
    }

    PlanDigest planDigest()
    {
        return planDigest;
    }

    int[] hostOf()
    {
        return hostOf.clone();
    }

    HostLiveness liveness()
    {
        return liveness;
    }

    MembershipListener membershipListener()
    {
        return membershipListener;
    }

    HostClients clients()
    {
        return clients;
    }

    AtomicInteger pendingCount()
    {
        return pendingCount;
    }

    long seed()
    {
        return seed;
    }

    long tickNs()
    {
        return tickNs;
    }

    int incarnation()
    {
        return incarnation;
    }

    long submitTimeoutNs()
    {
        return submitTimeoutNs;
    }

    int maxPending()
    {
        return maxPending;
    }
}
