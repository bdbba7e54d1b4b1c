package io.mmx.membership;

import io.mmx.membership.election.LeaderElection;
import io.mmx.membership.neighbour.HeartbeatReader;
import io.mmx.membership.neighbour.HeartbeatWriter;
import io.mmx.membership.neighbour.HostLiveness;
import io.mmx.membership.neighbour.LeaderWatch;
import io.mmx.membership.neighbour.NeighbourMonitor;
import io.mmx.membership.plan.PlanActivation;
import io.mmx.membership.swim.FailureDetector;
import io.mmx.membership.swim.MemberStatus;
import io.mmx.membership.wire.MessageType;
import io.mmx.membership.wire.PlanRefusal;
import io.mmx.membership.wire.SwimMessage;
import io.mmx.planner.plan.PlanDigest;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.SplittableRandom;

/**
 * The membership of one process, sans-IO: {@link #tick(long)} and {@link #onMessage} in, messages
 * out through an {@link Outbox}, events out through a {@link MembershipListener}. Composes the SWIM
 * {@link FailureDetector}, the Ω {@link LeaderElection}, {@link PlanActivation} and, when the host
 * gives memory access, a {@link NeighbourMonitor} and a {@link LeaderWatch}.
 * <p>
 * Fast failover: a leader bumps its heartbeat word every tick; each plan neighbour of the leader (on
 * another host) reads it every tick, and when its {@link LeaderWatch} declares the leader stopped it
 * sends LEADER_DOWN to every member. A member that learns it drops the leader's claim and holds the
 * leader's whole host down (processes of one host share its thread, so they stop together) until a
 * LEADER_CLAIM comes from that host or a lease passes; the lowest member not dead or down then has
 * rank 0 and claims at once. Every new leader sends its claim to every member once (LEADER_CLAIM),
 * and a leader that hears itself declared down does too, which refutes the declaration.
 * <p>
 * No threads, clocks or I/O; all randomness from the seed. Not thread-safe. Malformed messages are
 * counted and ignored, never thrown.
 */
public final class MembershipNode
{
    private static final int MAX_DOWN_HOSTS = 8;
    /** Lower hosts a LEADER_DOWN asks the operating system about, at most ({@link #holdGoneHostsDead}). */
    private static final int MAX_HOST_QUESTIONS = 16;
    private static final byte UNASKED = 0;
    private static final byte NOT_GONE = 1;
    private static final byte GONE = 2;

    private final MembershipConfig config;
    private final int processes;
    private final int self;
    private final Outbox outbox;
    private final MembershipListener listener;
    private final FailureDetector detector;
    private final LeaderElection election;
    private final PlanActivation plan;
    private final NeighbourMonitor monitor;
    private final HeartbeatReader heartbeatReader;
    private final HeartbeatWriter heartbeatWriter;
    private final SwimMessage encoder = new SwimMessage();
    private final SwimMessage decoder = new SwimMessage();
    private final UnsafeBuffer sendBuffer;
    private final byte[] scratchHash = new byte[PlanRefusal.HASH_LENGTH];
    private final byte[] planHash;
    private final java.util.function.IntPredicate isDead;
    private final NeighbourMonitor.Listener neighbourListener;
    private final LeaderWatch leaderWatch;
    /** Host of each process (processes of one host stop together), or null: each process is its own host. */
    private final int[] hostOf;
    /** Members of each host, or null with {@link #hostOf}. */
    private final int[][] hostMembers;
    /** Lower ids on this process's own host: they run while it runs (see {@link LeaderElection#tick(long, int, int)}). */
    private final int hostLower;
    /** Per host, what the operating system said during one {@link #holdGoneHostsDead}; null with {@link #hostOf}. */
    private final byte[] hostVerdict;
    /** Hosts a LEADER_DOWN named, until when; bounded, the oldest is forgotten when full. */
    private final int[] downHosts = new int[MAX_DOWN_HOSTS];
    private final long[] downUntilTick = new long[MAX_DOWN_HOSTS];
    private int downCount;
    private long lastLedTick = Long.MIN_VALUE / 2;
    private long announcedEpoch = -1;
    /** When this leader last renewed its claim at every host (see {@link #renewClaim}). */
    private long renewedTick = Long.MIN_VALUE / 2;
    private int watchedNeighbourIndex = -1;
    private final HostLiveness liveness;
    private long leaderDownNotices;
    private long hostsHeldDead;
    private long silentLeadersFoundGone;
    private long nextLeaderQuestionTick = Long.MIN_VALUE / 2;
    private long neighbourSuspicionChanges;
    private long leaderDeclarationsVetoed;
    private long leaderDownSent;
    private long leaderDeclarations;
    /** The era this membership serves ended: its leader's memory heartbeat is no longer watched. */
    private boolean eraEnded;
    private long nowTick;
    private long nextHelloTick;
    private long nextNewsTick;
    private int refusalsThisPeriod;
    private long refusalPeriodStartTick;
    private long messagesSent;
    private long messagesReceived;
    private long malformedMessages;
    private long foreignPlanMessages;

    /**
     * @param config          concluded for {@code processes}.
     * @param processes       n.
     * @param self            this process, 0..n-1.
     * @param planDigest      the plan's content hash.
     * @param neighbours      plan neighbours (may be empty).
     * @param seed            of this node's random generator.
     * @param outbox          where messages go.
     * @param listener        where events go.
     * @param heartbeatReader neighbours' heartbeat words, or null for no memory monitoring.
     * @param heartbeatWriter own heartbeat word, or null.
     * @param startTick       tick of creation.
     */
    public MembershipNode(
        final MembershipConfig config,
        final int processes,
        final int self,
        final PlanDigest planDigest,
        final int[] neighbours,
        final long seed,
        final Outbox outbox,
        final MembershipListener listener,
        final HeartbeatReader heartbeatReader,
        final HeartbeatWriter heartbeatWriter,
        final long startTick)
    {
        this(config, processes, self, planDigest, neighbours, seed, outbox, listener, heartbeatReader, heartbeatWriter,
            startTick, null, HostLiveness.NONE);
    }

    /**
     * As {@link #MembershipNode(MembershipConfig, int, int, PlanDigest, int[], long, Outbox, MembershipListener,
     * HeartbeatReader, HeartbeatWriter, long)}, with the hosts of the processes.
     *
     * @param hostOf   host of each process, n entries: processes of one host run on one thread and stop
     *                 together (a LEADER_DOWN holds the leader's whole host down); null: each its own host.
     * @param liveness what the operating system says of a leader's host: a leader whose host surely runs is
     *                 not declared stopped, however long its word stands still (the lease still applies).
     */
    public MembershipNode(
        final MembershipConfig config,
        final int processes,
        final int self,
        final PlanDigest planDigest,
        final int[] neighbours,
        final long seed,
        final Outbox outbox,
        final MembershipListener listener,
        final HeartbeatReader heartbeatReader,
        final HeartbeatWriter heartbeatWriter,
        final long startTick,
        final int[] hostOf,
        final HostLiveness liveness)
    {
        if (config.concludedFor() != processes)
        {
            throw new IllegalStateException("MembershipConfig must be concluded for n=" + processes + " first");
        }
        if (self < 0 || self >= processes)
        {
            throw new IllegalArgumentException("process id " + self + " outside 0.." + (processes - 1));
        }
        this.config = config;
        this.processes = processes;
        this.self = self;
        this.outbox = outbox;
        this.listener = listener;
        this.heartbeatReader = heartbeatReader;
        this.heartbeatWriter = heartbeatWriter;
        this.nowTick = startTick;
        this.planHash = planDigest.toByteArray();
        // Method references bound once here: binding them per tick would allocate on every tick.
        this.neighbourListener = listener::onNeighbourSuspicion;
        sendBuffer = new UnsafeBuffer(new byte[Math.max(
            SwimMessage.maxLength(config.maxPiggybackUpdates()), PlanRefusal.LENGTH)]);
        election = new LeaderElection(config, self, listener::onLeaderChanged, liveness);
        detector = new FailureDetector(config, processes, self, new SplittableRandom(seed), this::send, this::onStatus);
        plan = new PlanActivation(planDigest, neighbours);
        isDead = detector::isDead;
        if (hostOf != null && hostOf.length != processes)
        {
            throw new IllegalArgumentException("hostOf has " + hostOf.length + " entries for " + processes +
                " processes: give one host per process");
        }
        monitor = heartbeatReader != null && heartbeatWriter != null ?
            // A neighbour whose host surely runs is given up to a lease, as a leader is (claims).
            new NeighbourMonitor(otherHosts(neighbours, self, hostOf), config.heartbeatIntervalTicks(),
                config.neighbourStaleTicks(), startTick, liveness,
                Math.max(config.neighbourStaleTicks(), config.leaderLeaseTicks())) :
            null;
        leaderWatch = monitor != null ? new LeaderWatch(config.leaderStaleTicks(), config.leaderStaleReads()) : null;
        this.hostOf = hostOf == null ? null : hostOf.clone();
        this.liveness = liveness;
        this.hostMembers = hostOf == null ? null : membersByHost(hostOf);
        this.hostVerdict = hostMembers == null ? null : new byte[hostMembers.length];
        int lower = 0;
        if (hostMembers != null)
        {
            for (final int m : hostMembers[hostOf[self]])
            {
                lower += m < self ? 1 : 0;
            }
        }
        this.hostLower = lower;
    }

    /**
     * The neighbours whose heartbeats are worth reading: those on other hosts. A neighbour on this
     * process's own host stops only with it, so nobody would be left to act on its stop; reading its
     * word costs a memory operation per interval for nothing (a quarter of all reads with 256
     * processes per JVM at n = 1024).
     */
    private static int[] otherHosts(final int[] neighbours, final int self, final int[] hostOf)
    {
        if (hostOf == null)
        {
            return neighbours;
        }
        return java.util.Arrays.stream(neighbours).filter(v -> hostOf[v] != hostOf[self]).toArray();
    }

    private static int[][] membersByHost(final int[] hostOf)
    {
        int hosts = 0;
        for (final int h : hostOf)
        {
            if (h < 0)
            {
                throw new IllegalArgumentException("host index " + h + " is negative");
            }
            hosts = Math.max(hosts, h + 1);
        }
        final int[] count = new int[hosts];
        for (final int h : hostOf)
        {
            count[h]++;
        }
        final int[][] members = new int[hosts][];
        for (int h = 0; h < hosts; h++)
        {
            members[h] = new int[count[h]];
            count[h] = 0;
        }
        for (int p = 0; p < hostOf.length; p++)
        {
            members[hostOf[p]][count[hostOf[p]]++] = p;
        }
        return members;
    }

    /**
     * Advance time: probes, timeouts, election, plan activation, memory heartbeats.
     *
     * @param nowTick current tick, non-decreasing.
     */
    public void tick(final long nowTick)
    {
        this.nowTick = nowTick;
        detector.tick(nowTick);
        expireDownHosts(nowTick);
        election.tick(nowTick, rank(), hostLower);
        announceIfNewLeader();
        renewClaim();
        if (nowTick >= nextNewsTick && election.wantsLeaderNews(nowTick))
        {
            // At most one extra message per period, and only while the leader claim is ageing or
            // missing: after mass crashes most probes hit dead members and news travels slowly.
            nextNewsTick = nowTick + config.protocolPeriodTicks();
            detector.pingRandomMember();
        }
        if (plan.state() == PlanActivation.State.PENDING)
        {
            if (nowTick >= nextHelloTick)
            {
                nextHelloTick = nowTick + config.protocolPeriodTicks();
                final int[] neighbours = plan.neighbours();
                for (int i = 0; i < neighbours.length; i++)
                {
                    if (plan.awaits(i) && !detector.isDead(neighbours[i]))
                    {
                        send(MessageType.PLAN_HELLO, neighbours[i], 0, -1, 0, -1);
                    }
                }
            }
            if (plan.tryActivate(election.leaderId(nowTick) >= 0, isDead))
            {
                listener.onPlanActivation(true, null, nowTick);
            }
        }
        if (monitor != null)
        {
            if (election.role() == Role.LEADER)
            {
                lastLedTick = nowTick;
            }
            // A leader beats every tick, and for a lease after it stepped down: members that have not
            // heard yet still follow it and must not see it stop.
            neighbourSuspicionChanges += monitor.tick(nowTick, heartbeatWriter, heartbeatReader, neighbourListener,
                nowTick - lastLedTick <= config.leaderLeaseTicks());
            watchLeader(nowTick);
        }
        askAboutSilentLeader(nowTick);
    }

    /**
     * A leader with no plan neighbour left on another host to read its heartbeat is never declared
     * down: in the demo at n = 4096 the leader of the tenth kill had all eight neighbours dead or on
     * its own JVM, and every follower waited for its claim to lapse, then for the capped rank, 13 s
     * without a commit in every run. So once the followed claim has missed its renewals (older than
     * half a lease, when gossip is asked for news too), a follower asks the host's liveness about the
     * leader every eighth of a lease; a leader the operating system knows gone is handled as a
     * LEADER_DOWN heard here. Nobody else is told: every follower asks for itself, and where the
     * liveness cannot tell (another machine) this changes nothing.
     */
    private void askAboutSilentLeader(final long nowTick)
    {
        if (election.role() != Role.FOLLOWER || nowTick < nextLeaderQuestionTick)
        {
            return;
        }
        if (!election.wantsLeaderNews(nowTick))
        {
            return;
        }
        final int leader = election.leaderId(nowTick);
        if (leader < 0 || hostOf(leader) == hostOf(self))
        {
            return;
        }
        nextLeaderQuestionTick = nowTick + Math.max(1, config.leaderLeaseTicks() / 8);
        if (liveness.surelyDead(leader))
        {
            silentLeadersFoundGone++;
            onLeaderDown(leader, nowTick);
        }
    }

    /** @return followed leaders whose claim went silent and whose process the host said was gone. */
    public long silentLeadersFoundGone()
    {
        return silentLeadersFoundGone;
    }

    /**
     * The era this membership serves ended (a live plan change was applied here): its leader decides
     * nothing more, and its memory heartbeat stands still while its node builds the next era or once
     * it serves it. From now on this node no longer reads the leader's heartbeat, so it declares no
     * leader stopped on a still word: it would only tell every member of an era that is over, and log
     * a leader down at every change. Everything else goes on (its own heartbeat, claims, and a leader
     * the host knows is gone).
     */
    public void eraEnded()
    {
        eraEnded = true;
    }

    /** Reads the followed leader's heartbeat once a tick, if it is a plan neighbour on another host. */
    private void watchLeader(final long nowTick)
    {
        if (eraEnded)
        {
            return;
        }
        final int leader = election.role() == Role.FOLLOWER ? election.leaderId(nowTick) : -1;
        if (leader != leaderWatch.watched())
        {
            watchedNeighbourIndex = leader < 0 || hostOf(leader) == hostOf(self) ? -1 : neighbourIndex(leader);
            leaderWatch.watch(watchedNeighbourIndex < 0 ? -1 : leader, nowTick);
        }
        if (watchedNeighbourIndex < 0)
        {
            return;
        }
        if (leaderWatch.onRead(nowTick, heartbeatReader.readHeartbeat(leader)))
        {
            if (liveness.surelyRuns(leader))
            {
                // Its word stood still, but its host runs: slowness (a busy machine, a pause), not a crash.
                leaderDeclarationsVetoed++;
                leaderWatch.vetoed();
            }
            else
            {
                declareLeaderStopped(leader, nowTick);
            }
        }
        else if (leaderWatch.earlyCheckDue(nowTick, config.leaderConfirmedStaleTicks(), config.leaderConfirmedStaleReads()) &&
            liveness.surelyDead(leader))
        {
            // Still only briefly, but the operating system says its process is gone: no reason to wait.
            leaderWatch.declareConfirmed();
            declareLeaderStopped(leader, nowTick);
        }
    }

    private void declareLeaderStopped(final int leader, final long nowTick)
    {
        leaderDeclarations++;
        listener.onLeaderStopped(leader, leaderWatch.stillTicks(nowTick), leaderWatch.stillReads(), nowTick);
        // A rare event: every member hears it directly, so that a new leader commits at once.
        for (int p = 0; p < processes; p++)
        {
            if (p != self)
            {
                leaderDownSent++;
                send(MessageType.LEADER_DOWN, p, 0, leader, detector.incarnation(leader), -1);
            }
        }
        onLeaderDown(leader, nowTick);
    }

    /**
     * The leader's heartbeat stopped (seen here or by a neighbour of it): drop its claim, hold its host
     * down, and let the lowest member left claim at once.
     */
    private void onLeaderDown(final int leader, final long nowTick)
    {
        leaderDownNotices++;
        if (hostOf(leader) == hostOf(self))
        {
            // This process shares the leader's thread and runs: the leader runs too. Refute, if it is this one.
            if (leader == self && election.role() == Role.LEADER)
            {
                announce();
            }
            return;
        }
        // Every plan neighbour of the leader that saw it stop declares it: ask the host once per stop.
        final boolean news = !isDown(leader);
        markHostDown(hostOf(leader), nowTick + config.leaderLeaseTicks());
        forEachHostMember(hostOf(leader), nowTick);
        if (news)
        {
            holdGoneHostsDead(nowTick);
        }
        // Two steps: a follower without a claim becomes candidate, a candidate of rank 0 claims.
        election.tick(nowTick, rank(), hostLower);
        election.tick(nowTick, rank(), hostLower);
        announceIfNewLeader();
    }

    /**
     * After a LEADER_DOWN, the members of lower hosts whose JVM the operating system knows gone are held
     * dead at once, not a suspicion timeout later. The rank counts lower ids not known dead, and the
     * processes of a JVM killed seconds before the leader's still counted: the lowest live process then
     * waited the capped rank like all the others instead of claiming at once (the demo at n = 4096,
     * killing a JVM every 6 s against a 5 s suspicion timeout, stopped this way). One question per host,
     * asked of one of its members not already held dead; it stops once the lower ids that may run reach
     * the rank cap, beyond which they no longer change the wait, or after {@link #MAX_HOST_QUESTIONS}.
     * A host that cannot tell ({@link HostLiveness#NONE}, another machine) answers no and changes nothing.
     */
    private void holdGoneHostsDead(final long nowTick)
    {
        if (hostVerdict != null)
        {
            java.util.Arrays.fill(hostVerdict, UNASKED);
        }
        final int ownHost = hostOf(self);
        int mayRun = 0;
        int questions = 0;
        for (int p = 0; p < self && mayRun < config.maxCandidateRank(); p++)
        {
            if (detector.isDead(p))
            {
                continue;
            }
            final int host = hostOf(p);
            if (host == ownHost)
            {
                mayRun++;
                continue;
            }
            byte verdict = hostVerdict == null ? UNASKED : hostVerdict[host];
            if (verdict == UNASKED)
            {
                if (questions == MAX_HOST_QUESTIONS)
                {
                    return;
                }
                questions++;
                verdict = liveness.surelyDead(p) ? GONE : NOT_GONE;
                if (hostVerdict != null)
                {
                    hostVerdict[host] = verdict;
                }
                if (verdict == GONE)
                {
                    hostsHeldDead++;
                    if (hostMembers == null)
                    {
                        detector.apply(p, detector.incarnation(p), MemberStatus.DEAD, nowTick);
                    }
                    else
                    {
                        for (final int m : hostMembers[host])
                        {
                            if (!detector.isDead(m))
                            {
                                detector.apply(m, detector.incarnation(m), MemberStatus.DEAD, nowTick);
                            }
                        }
                    }
                }
            }
            mayRun += verdict == GONE ? 0 : 1;
        }
    }

    /** @return hosts a LEADER_DOWN found gone by asking the operating system ({@link #holdGoneHostsDead}). */
    public long hostsHeldDead()
    {
        return hostsHeldDead;
    }

    private void forEachHostMember(final int host, final long nowTick)
    {
        if (hostMembers == null)
        {
            election.onMemberDead(host, nowTick);
            return;
        }
        for (final int m : hostMembers[host])
        {
            election.onMemberDead(m, nowTick);
        }
    }

    /**
     * A new leader tells every member at once (one claim per epoch; leaderships are rare): after a
     * LEADER_DOWN the members wait on it, and a restarted leader's claim is heard through the hold.
     */
    private void announceIfNewLeader()
    {
        if (election.role() == Role.LEADER && election.maxEpochSeen() != announcedEpoch)
        {
            announce();
        }
    }

    /**
     * A leader renews its claim at every host four times a lease: one message per host, which hands
     * it to each of its processes. Gossip alone carries a claim from process to process one protocol
     * period per hop; with a thousand processes on a busy machine the hops took longer than a lease,
     * and followers dropped a live leader (dozens of lapses per JVM a minute at n = 1024).
     */
    private void renewClaim()
    {
        if (election.role() != Role.LEADER || nowTick - renewedTick < config.leaderLeaseTicks() / 4)
        {
            return;
        }
        renewedTick = nowTick;
        if (hostMembers == null)
        {
            for (int p = 0; p < processes; p++)
            {
                if (p != self)
                {
                    sendToHostOf(MessageType.LEADER_CLAIM, p);
                }
            }
            return;
        }
        for (final int[] members : hostMembers)
        {
            // Any process of the host addresses it; the own host's others hear it over IPC.
            final int to = members.length == 0 ? -1 : members[0] != self ? members[0] : members.length > 1 ? members[1] : -1;
            if (to >= 0)
            {
                sendToHostOf(MessageType.LEADER_CLAIM, to);
            }
        }
    }

    private void announce()
    {
        renewedTick = nowTick;
        announcedEpoch = election.maxEpochSeen();
        for (int p = 0; p < processes; p++)
        {
            if (p != self)
            {
                send(MessageType.LEADER_CLAIM, p, 0, -1, 0, -1);
            }
        }
    }

    private int neighbourIndex(final int process)
    {
        final int[] neighbours = plan.neighbours();
        for (int i = 0; i < neighbours.length; i++)
        {
            if (neighbours[i] == process)
            {
                return i;
            }
        }
        return -1;
    }

    private int hostOf(final int process)
    {
        return hostOf == null ? process : hostOf[process];
    }

    private void markHostDown(final int host, final long untilTick)
    {
        for (int i = 0; i < downCount; i++)
        {
            if (downHosts[i] == host)
            {
                downUntilTick[i] = untilTick;
                return;
            }
        }
        if (downCount == MAX_DOWN_HOSTS)
        {
            removeDown(0);
        }
        downHosts[downCount] = host;
        downUntilTick[downCount] = untilTick;
        downCount++;
    }

    private void removeDown(final int index)
    {
        System.arraycopy(downHosts, index + 1, downHosts, index, downCount - index - 1);
        System.arraycopy(downUntilTick, index + 1, downUntilTick, index, downCount - index - 1);
        downCount--;
    }

    private void expireDownHosts(final long nowTick)
    {
        for (int i = downCount - 1; i >= 0; i--)
        {
            if (nowTick >= downUntilTick[i])
            {
                removeDown(i);
            }
        }
    }

    /**
     * A LEADER_CLAIM came from {@code src} itself: its host runs. Other messages do not clear the hold:
     * frames a killed host sent just before it died may still be polled after the LEADER_DOWN.
     */
    private void clearDown(final int src)
    {
        if (downCount == 0)
        {
            return;
        }
        final int host = hostOf(src);
        for (int i = 0; i < downCount; i++)
        {
            if (downHosts[i] == host)
            {
                removeDown(i);
                return;
            }
        }
    }

    private boolean isDown(final int process)
    {
        if (downCount == 0)
        {
            return false;
        }
        final int host = hostOf(process);
        for (int i = 0; i < downCount; i++)
        {
            if (downHosts[i] == host)
            {
                return true;
            }
        }
        return false;
    }

    /** The failure detector's rank, less the lower members of hosts held down that it does not hold dead. */
    private int rank()
    {
        int rank = detector.rank();
        for (int i = 0; i < downCount; i++)
        {
            final int host = downHosts[i];
            if (hostMembers == null)
            {
                rank -= host < self && !detector.isDead(host) ? 1 : 0;
                continue;
            }
            for (final int m : hostMembers[host])
            {
                rank -= m < self && !detector.isDead(m) ? 1 : 0;
            }
        }
        return rank;
    }

    /**
     * A protocol message of another process's (a consensus reply or request, not membership's) arrived
     * for this one. It renews a leader's contact as a membership message does: a leader whose acceptors
     * answer is not cut off, even while membership's own messages are few on a busy host (at n = 4096
     * a leader that heard no membership message for a lease stepped down while a quorum answered it,
     * and every step down costs a new phase 1 of seconds).
     *
     * @param nowTick current tick.
     */
    public void onProtocolContact(final long nowTick)
    {
        election.onHeard(nowTick);
    }

    /**
     * A message arrived.
     *
     * @param nowTick current tick.
     * @param src     sender (authenticated by the transport).
     * @param type    message type.
     * @param buffer  holding the message.
     * @param offset  of the message.
     * @param length  in bytes.
     */
    public void onMessage(
        final long nowTick,
        final int src,
        final int type,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        this.nowTick = nowTick;
        messagesReceived++;
        if (src < 0 || src >= processes || src == self)
        {
            malformedMessages++;
            return;
        }
        if (type == MessageType.PLAN_REFUSED)
        {
            onRefused(src, buffer, offset, length);
            return;
        }
        if (!MessageType.isMembership(type))
        {
            malformedMessages++;
            return;
        }
        final SwimMessage message = decoder.wrap(buffer, offset);
        if (!message.isWellFormed(length))
        {
            malformedMessages++;
            return;
        }
        if (message.planFingerprint() != plan.fingerprint())
        {
            refuse(src, message.planFingerprint());
            return;
        }
        if (type == MessageType.LEADER_CLAIM)
        {
            clearDown(src);
        }
        if (!applyPiggyback(message))
        {
            return;
        }
        detector.onDirectContact(src, message.senderIncarnation(), nowTick);
        election.onHeard(nowTick);
        switch (type)
        {
            case MessageType.PING:
                detector.onPing(src, message.probeSeq(), validOrigin(message.origin()));
                break;
            case MessageType.ACK:
                detector.onAck(message.probeSeq(), message.subject(), message.subjectIncarnation(),
                    validOrigin(message.origin()), nowTick);
                break;
            case MessageType.PING_REQ:
                detector.onPingReq(src, message.probeSeq(), message.subject());
                break;
            case MessageType.PLAN_HELLO:
                plan.onConfirmed(src);
                send(MessageType.PLAN_ACK, src, 0, -1, 0, -1);
                break;
            case MessageType.PLAN_ACK:
                plan.onConfirmed(src);
                break;
            case MessageType.LEADER_DOWN:
                if (message.subject() < 0 || message.subject() >= processes || message.subject() == src)
                {
                    malformedMessages++;
                }
                else
                {
                    onLeaderDown(message.subject(), nowTick);
                }
                break;
            case MessageType.LEADER_CLAIM:
                // The claim record in the header did the work (applyPiggyback).
                break;
            default:
                malformedMessages++;
                break;
        }
    }

    private int validOrigin(final int origin)
    {
        return origin >= 0 && origin < processes ? origin : -1;
    }

    private boolean applyPiggyback(final SwimMessage message)
    {
        final int count = message.updateCount();
        for (int i = 0; i < count; i++)
        {
            final int member = message.updateMember(i);
            final MemberStatus status = MemberStatus.fromCode(message.updateStatus(i));
            if (member < 0 || member >= processes || status == null || message.updateIncarnation(i) < 0)
            {
                malformedMessages++;
                return false;
            }
        }
        for (int i = 0; i < count; i++)
        {
            detector.apply(message.updateMember(i), message.updateIncarnation(i),
                MemberStatus.fromCode(message.updateStatus(i)), nowTick);
        }
        final int leaderId = message.leaderId();
        if (leaderId >= 0 && leaderId < processes)
        {
            final int leaderIncarnation = message.leaderIncarnation();
            if (leaderIncarnation > detector.incarnation(leaderId))
            {
                // The claim was made by the leader itself at that incarnation: evidence it is alive,
                // which revives a leader this view had (falsely) declared dead.
                detector.apply(leaderId, leaderIncarnation, MemberStatus.ALIVE, nowTick);
            }
            election.onClaim(nowTick, leaderId, message.leaderEpoch(), message.leaderAgeTicks(), leaderIncarnation,
                detector.isDead(leaderId) || isDown(leaderId));
        }
        return true;
    }

    private void refuse(final int src, final long fingerprint)
    {
        foreignPlanMessages++;
        if (nowTick - refusalPeriodStartTick >= config.protocolPeriodTicks())
        {
            refusalPeriodStartTick = nowTick;
            refusalsThisPeriod = 0;
        }
        // Bounded: a misconfigured process cannot make this one send more than a few refusals per period.
        if (refusalsThisPeriod++ < 4)
        {
            final int length = PlanRefusal.encode(sendBuffer, 0, planHash, fingerprint);
            messagesSent++;
            outbox.send(self, src, MessageType.PLAN_REFUSED, sendBuffer, 0, length);
        }
    }

    private void onRefused(final int src, final DirectBuffer buffer, final int offset, final int length)
    {
        if (length != PlanRefusal.LENGTH)
        {
            malformedMessages++;
            return;
        }
        final long received = PlanRefusal.decode(buffer, offset, scratchHash);
        if (received != plan.fingerprint() || PlanDigest.membershipFingerprint(scratchHash) == plan.fingerprint())
        {
            // Not about our plan, or not actually a different plan: a stale or forged refusal.
            malformedMessages++;
            return;
        }
        final String sentence = plan.onRefused(self, src, scratchHash);
        if (sentence != null)
        {
            listener.onPlanActivation(false, sentence, nowTick);
        }
    }

    private void onStatus(final int member, final MemberStatus status, final int incarnation, final long tick)
    {
        if (status == MemberStatus.DEAD)
        {
            election.onMemberDead(member, tick);
        }
        listener.onMemberStatus(member, status, incarnation, tick);
    }

    private void sendToHostOf(final int type, final int dst)
    {
        final int length = encode(0, -1, 0, -1);
        messagesSent++;
        outbox.sendToHostOf(self, dst, type, sendBuffer, 0, length);
    }

    private void send(
        final int type,
        final int dst,
        final int probeSeq,
        final int subject,
        final int subjectIncarnation,
        final int origin)
    {
        final int length = encode(probeSeq, subject, subjectIncarnation, origin);
        messagesSent++;
        outbox.send(self, dst, type, sendBuffer, 0, length);
    }

    private int encode(final int probeSeq, final int subject, final int subjectIncarnation, final int origin)
    {
        final int leaderAge = election.recordAgeTicks(nowTick);
        encoder.wrapForEncode(sendBuffer, 0).header(
            plan.fingerprint(),
            detector.selfIncarnation(),
            probeSeq,
            subject,
            subjectIncarnation,
            origin,
            leaderAge < 0 ? -1 : election.recordLeaderId(nowTick),
            election.recordEpoch(nowTick),
            Math.max(0, leaderAge),
            election.recordIncarnation(detector.selfIncarnation()));
        // News about the leader (its death, its refutation) goes first: Ω waits on it.
        final int count = detector.dissemination().fill(encoder, config.maxPiggybackUpdates(), election.lastLeaderId());
        return encoder.updateCount(count);
    }

    /** @return this process id. */
    /**
     * True while this process's tick is time-critical: it leads (or led within a lease: it beats its
     * heartbeat word every tick for its watchers) or it watches the leader's word every tick. A host
     * that is quiet may tick the others less often ({@code HostedMembers#advance(long, boolean)}).
     */
    public boolean needsEveryTick()
    {
        return nowTick - lastLedTick <= config.leaderLeaseTicks() || watchedNeighbourIndex >= 0;
    }

    /** @return this process's id. */
    public int self()
    {
        return self;
    }

    /** @return the leader this process follows, or -1. */
    public int leaderId()
    {
        return election.leaderId(nowTick);
    }

    /** @return the epoch of {@link #leaderId()}. */
    public long leaderEpoch()
    {
        return election.leaderEpoch(nowTick);
    }

    /** @return this process's role in the leader election. */
    public Role electionRole()
    {
        return election.role();
    }

    /**
     * @param member id.
     * @return its status in this process's view.
     */
    public MemberStatus status(final int member)
    {
        return detector.status(member);
    }

    /** @return members this view holds dead. */
    public int deadCount()
    {
        return detector.deadCount();
    }

    /** @return this process's incarnation. */
    public int incarnation()
    {
        return detector.selfIncarnation();
    }

    /** @return plan activation state. */
    public PlanActivation.State planState()
    {
        return plan.state();
    }

    /** @return the refusal sentence, or null. */
    public String planRefusal()
    {
        return plan.refusal();
    }

    /**
     * @param neighbourId plan neighbour.
     * @return true if its memory heartbeat is stale.
     */
    public boolean isNeighbourSuspected(final int neighbourId)
    {
        return monitor != null && monitor.isSuspected(neighbourId);
    }

    /**
     * @return how often a neighbour's suspicion changed so far: a caller that mirrors
     * {@link #isNeighbourSuspected} need only look again when this moved.
     */
    public long neighbourSuspicionChanges()
    {
        return neighbourSuspicionChanges;
    }

    /** @return LEADER_DOWN notices this process acted on (its own declarations included). */
    public long leaderDownNotices()
    {
        return leaderDownNotices;
    }

    /** @return times this process declared the leader it followed stopped (and sent LEADER_DOWN to every member). */
    public long leaderDeclarations()
    {
        return leaderDeclarations;
    }

    /** @return times the leader's word stood still past the bound while its host surely ran: no declaration. */
    public long leaderDeclarationsVetoed()
    {
        return leaderDeclarationsVetoed;
    }

    /** @return times the followed leader's claim was kept past its lease because its JVM surely ran. */
    public long leaderClaimsKept()
    {
        return election.claimsKept();
    }

    /** @return neighbour suspicions held back because the neighbour's host surely ran. */
    public long neighbourSuspicionsVetoed()
    {
        return monitor == null ? 0 : monitor.suspicionsVetoed();
    }

    /** @return LEADER_DOWN messages this process sent: it declared a leader stopped (n - 1 per declaration). */
    public long leaderDownSent()
    {
        return leaderDownSent;
    }

    /**
     * @return the longest time in ticks the followed leader's heartbeat stood still before it moved again, as
     * this process saw it (0 without memory monitoring): how close a false declaration came.
     */
    public long longestLeaderSilenceTicks()
    {
        return leaderWatch == null ? 0 : leaderWatch.longestSilenceTicks();
    }

    /** @return messages handed to the outbox. */
    public long messagesSent()
    {
        return messagesSent;
    }

    /** @return messages received. */
    public long messagesReceived()
    {
        return messagesReceived;
    }

    /** @return messages dropped as malformed. */
    public long malformedMessages()
    {
        return malformedMessages;
    }

    /** @return messages dropped because they carried another plan. */
    public long foreignPlanMessages()
    {
        return foreignPlanMessages;
    }

    /** @return dissemination updates evicted for lack of room. */
    public long disseminationEvictions()
    {
        return detector.dissemination().evictions();
    }
}
