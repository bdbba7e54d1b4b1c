package io.mmx.runtime.sim;

import java.util.SplittableRandom;

/**
 * Fault rates and latencies of one simulated run. {@link #fromSeed} draws them from the seed,
 * so a seed alone replays a run; {@link #calm()} is the fault-free plan for scale runs.
 * Times are simulated microseconds; probabilities are per message or per operation.
 */
public final class FaultPlan
{
    /** Shortest message delay. */
    public long messageDelayMinMicros = 5;
    /** Longest ordinary message delay. */
    public long messageDelayMaxMicros = 40;
    /** Probability that a message is lost. */
    public double messageLoss;
    /** Probability that a message is delivered twice. */
    public double messageDuplication;
    /** Shortest memory operation. */
    public long memoryLatencyMinMicros = 2;
    /** Longest ordinary memory operation. */
    public long memoryLatencyMaxMicros = 8;
    /** When an unanswered memory operation times out. */
    public long memoryTimeoutMicros = 500;
    /** Probability that a memory operation times out (and may still land later). */
    public double memoryTimeout;
    /** Mean simulated time between random fault events (crash, restart, suspicion, churn, partition); 0 = none. */
    public long faultIntervalMicros;
    /** Weight of a process crash among the random faults. */
    public double crashWeight;
    /** Weight of a live process falsely suspected by its neighbours for a while. */
    public double falseSuspicionWeight;
    /** Weight of the leader oracle naming another leader. */
    public double leaderChurnWeight;
    /** Weight of a message partition for a while. */
    public double partitionWeight;
    /** Losing a host: the process crashes and its region is gone for good (its acceptor too). */
    public double hostLossWeight;
    /** Most processes crashed at once by random faults, as a fraction of n. */
    public double maxCrashedFraction = 0.4;
    /** Longest time before a crashed process (or lost host) comes back. */
    public long restartDelayMaxMicros = 5_000;
    /** Time from a crash to its suspicion and to the oracle's new leader. */
    public long detectionDelayMicros = 300;
    /** Longest delay between processes learning of a leader change. */
    public long leaderSkewMaxMicros = 200;
    /** Longest false suspicion or partition. */
    public long faultDurationMaxMicros = 3_000;
    /**
     * Memory as real backends may behave: an op takes effect at a random moment between issue
     * and completion, multi-word ops in chunks at random word boundaries (so they interleave word
     * by word with concurrent ops). Off: every op is atomic at issue.
     */
    public boolean tornMemory;
    /** A timed-out op that lands late does so within this long after its timeout (unless fenced first). */
    public long lateLandingMaxMicros = 2_000;
    /** Probability that a memory op is slow, taking up to {@link #memoryTailMaxMicros} (torn memory only). */
    public double memoryTailProbability;
    /** Longest slow memory operation. */
    public long memoryTailMaxMicros = 2_000;
    /** Probability that a message is a straggler, delayed by up to {@link #messageTailMaxMicros} more. */
    public double messageTailProbability;
    /** Longest extra delay of a straggler message. */
    public long messageTailMaxMicros = 30_000;
    /** Competing leaders: two processes each told by part of the cluster that it leads. */
    public double splitLeaderWeight;
    /**
     * A leader bounce: the process that leads crashes and restarts before its neighbours and the
     * oracle notice (within the detection delay), with its messages still in flight.
     */
    public double bounceWeight;
    /** Probability that a broadcast is cut short: the sender crashes after sending it to some processes. */
    public double crashMidSend;
    /** Probability that a lost host comes back (within the restart delay) with its region empty. */
    public double hostReturn;
    /** Suspicion storm: for a while every process suspects every neighbour, so each acceptor has several executors. */
    public double suspicionStormWeight;
    /**
     * Probability that a bulk read (torn memory only) is served as requests of a few words each,
     * one of them slow: the words before and after it are copied at once, its own words up to
     * {@link #memoryTailMaxMicros} later, so a short record in a long read is torn in its middle
     * while both of its ends still match (a backend splitting a read, one request retried).
     */
    public double slowRequestRead;

    /** No random faults; fixed small latencies. */
    public static FaultPlan calm()
    {
        return new FaultPlan();
    }

    /** Every rate drawn from {@code seed}. */
    public static FaultPlan fromSeed(final long seed)
    {
        final SplittableRandom r = new SplittableRandom(seed ^ 0x5DEECE66DL);
        final FaultPlan f = new FaultPlan();
        f.messageDelayMinMicros = 1 + r.nextInt(20);
        f.messageDelayMaxMicros = f.messageDelayMinMicros + 5 + r.nextInt(300);
        f.messageLoss = r.nextDouble() * 0.1;
        f.messageDuplication = r.nextDouble() * 0.05;
        f.memoryLatencyMinMicros = 1 + r.nextInt(5);
        f.memoryLatencyMaxMicros = f.memoryLatencyMinMicros + r.nextInt(100);
        f.memoryTimeout = r.nextDouble() < 0.5 ? 0 : r.nextDouble() * 0.01;
        f.faultIntervalMicros = 200 + r.nextInt(3_000);
        f.crashWeight = r.nextDouble();
        f.falseSuspicionWeight = r.nextDouble();
        f.leaderChurnWeight = r.nextDouble();
        f.partitionWeight = r.nextDouble() * 0.5;
        f.hostLossWeight = r.nextDouble() < 0.25 ? r.nextDouble() * 0.2 : 0;
        f.maxCrashedFraction = 0.2 + r.nextDouble() * 0.6;
        f.restartDelayMaxMicros = 500 + r.nextInt(10_000);
        f.detectionDelayMicros = 50 + r.nextInt(1_000);
        f.leaderSkewMaxMicros = r.nextInt(2_000);
        f.faultDurationMaxMicros = 500 + r.nextInt(5_000);
        f.tornMemory = r.nextInt(4) != 0;
        f.lateLandingMaxMicros = 1 + r.nextInt(5_000);
        f.memoryTailProbability = r.nextBoolean() ? r.nextDouble() * 0.1 : 0;
        f.memoryTailMaxMicros = 50 + r.nextInt(350); // slower ops would be reported as timeouts
        f.messageTailProbability = r.nextBoolean() ? r.nextDouble() * 0.02 : 0;
        f.messageTailMaxMicros = 1_000 + r.nextInt(30_000);
        f.splitLeaderWeight = r.nextBoolean() ? r.nextDouble() * 0.5 : 0;
        f.bounceWeight = r.nextBoolean() ? r.nextDouble() * 0.5 : 0;
        f.crashMidSend = r.nextBoolean() ? r.nextDouble() * 0.003 : 0;
        f.hostReturn = r.nextBoolean() ? r.nextDouble() : 0;
        f.suspicionStormWeight = r.nextBoolean() ? r.nextDouble() * 0.3 : 0;
        f.slowRequestRead = f.tornMemory ? r.nextDouble() * 0.5 : 0; // drawn last: the rates above stay
        return f;
    }

    /** Fault kinds by name, as {@code mmx sim --faults} takes them. */
    public static final java.util.List<String> KINDS = java.util.List.of("crash", "host-loss", "false-suspicion", "suspicion-storm",
        "host-return", "churn", "split-leader", "bounce", "crash-mid-send", "partition", "loss", "duplication", "delay-tail", "memory-timeout", "torn-memory");

    /** Turns off every fault kind not in {@code kinds} (names from {@link #KINDS}). */
    public FaultPlan only(final java.util.Set<String> kinds)
    {
        for (final String k : kinds)
        {
            if (!KINDS.contains(k))
            {
                throw new IllegalArgumentException("unknown fault kind '" + k + "'; known: " + String.join(",", KINDS));
            }
        }
        crashWeight = kinds.contains("crash") ? crashWeight : 0;
        hostLossWeight = kinds.contains("host-loss") ? hostLossWeight : 0;
        falseSuspicionWeight = kinds.contains("false-suspicion") ? falseSuspicionWeight : 0;
        leaderChurnWeight = kinds.contains("churn") ? leaderChurnWeight : 0;
        splitLeaderWeight = kinds.contains("split-leader") ? splitLeaderWeight : 0;
        bounceWeight = kinds.contains("bounce") ? bounceWeight : 0;
        crashMidSend = kinds.contains("crash-mid-send") ? crashMidSend : 0;
        hostReturn = kinds.contains("host-return") ? hostReturn : 0;
        suspicionStormWeight = kinds.contains("suspicion-storm") ? suspicionStormWeight : 0;
        partitionWeight = kinds.contains("partition") ? partitionWeight : 0;
        messageLoss = kinds.contains("loss") ? messageLoss : 0;
        messageDuplication = kinds.contains("duplication") ? messageDuplication : 0;
        messageTailProbability = kinds.contains("delay-tail") ? messageTailProbability : 0;
        memoryTimeout = kinds.contains("memory-timeout") ? memoryTimeout : 0;
        tornMemory = kinds.contains("torn-memory") && tornMemory;
        memoryTailProbability = tornMemory ? memoryTailProbability : 0;
        slowRequestRead = tornMemory ? slowRequestRead : 0;
        final double events = crashWeight + hostLossWeight + falseSuspicionWeight + leaderChurnWeight +
            splitLeaderWeight + partitionWeight + bounceWeight + suspicionStormWeight;
        if (events == 0)
        {
            faultIntervalMicros = 0;
        }
        return this;
    }

    @Override
    public String toString()
    {
        return String.format("FaultPlan{delay %d..%dus tail %.3f..%dus loss %.3f dup %.3f mem %d..%dus tail %.3f..%dus%s slowReq %.2f " +
            "memTimeout %.4f late<=%dus faultEvery %dus crash %.2f falseSusp %.2f storm %.2f churn %.2f split %.2f bounce %.2f midSend %.4f " +
            "partition %.2f hostLoss %.2f return %.2f maxCrashed %.2f}",
            messageDelayMinMicros, messageDelayMaxMicros, messageTailProbability, messageTailMaxMicros, messageLoss,
            messageDuplication, memoryLatencyMinMicros, memoryLatencyMaxMicros, memoryTailProbability, memoryTailMaxMicros,
            tornMemory ? " torn" : "", slowRequestRead,
            memoryTimeout, lateLandingMaxMicros, faultIntervalMicros, crashWeight, falseSuspicionWeight, suspicionStormWeight,
            leaderChurnWeight, splitLeaderWeight, bounceWeight, crashMidSend, partitionWeight, hostLossWeight, hostReturn, maxCrashedFraction);
    }
}
