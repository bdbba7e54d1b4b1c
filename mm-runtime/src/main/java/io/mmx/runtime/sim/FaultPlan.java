package io.mmx.runtime.sim;

import java.util.SplittableRandom;

/**
 * Fault rates and latencies of one simulated run. {@link #fromSeed} draws them from the seed,
 * so a seed alone replays a run; {@link #calm()} is the fault-free plan for scale runs.
 * Times are simulated microseconds; probabilities are per message or per operation.
 */
public final class FaultPlan
{
    public long messageDelayMinMicros = 5;
    public long messageDelayMaxMicros = 40;
    public double messageLoss;
    public double messageDuplication;
    public long memoryLatencyMinMicros = 2;
    public long memoryLatencyMaxMicros = 8;
    public long memoryTimeoutMicros = 500;
    public double memoryTimeout;
    /** Mean simulated time between random fault events (crash, restart, suspicion, churn, partition); 0 = none. */
    public long faultIntervalMicros;
    public double crashWeight;
    public double falseSuspicionWeight;
    public double leaderChurnWeight;
    public double partitionWeight;
    /** Losing a host: the process crashes and its region is gone for good (its acceptor too). */
    public double hostLossWeight;
    /** Most processes crashed at once by random faults, as a fraction of n. */
    public double maxCrashedFraction = 0.4;
    public long restartDelayMaxMicros = 5_000;
    public long detectionDelayMicros = 300;
    public long leaderSkewMaxMicros = 200;
    public long faultDurationMaxMicros = 3_000;

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
        return f;
    }

    @Override
    public String toString()
    {
        return String.format("FaultPlan{delay %d..%dus loss %.3f dup %.3f mem %d..%dus memTimeout %.4f " +
            "faultEvery %dus crash %.2f falseSusp %.2f churn %.2f partition %.2f hostLoss %.2f maxCrashed %.2f}",
            messageDelayMinMicros, messageDelayMaxMicros, messageLoss, messageDuplication, memoryLatencyMinMicros,
            memoryLatencyMaxMicros, memoryTimeout, faultIntervalMicros, crashWeight, falseSuspicionWeight,
            leaderChurnWeight, partitionWeight, hostLossWeight, maxCrashedFraction);
    }
}
