package io.mmx.runtime.sim;

import java.util.SplittableRandom;

/**
 * The cluster shape and fault rates of one {@link HostSimulation} run, drawn from its seed so that
 * a seed alone replays the run. Times are virtual nanoseconds.
 */
public final class HostFaults
{
    /** Processes. */
    public int n;
    /** Processes per host (the last host may have fewer). */
    public int perHost;
    /** Degree of the random regular memory graph. */
    public int degree;
    /** Probability that a frame between two hosts is lost. */
    public double frameLoss;
    /** Longest delay of a frame between two hosts (frames overtake each other within it). */
    public long frameDelayMaxNs;
    /** Shortest memory operation. */
    public long memoryLatencyMinNs;
    /** Longest ordinary memory operation. */
    public long memoryLatencyMaxNs;
    /** Probability that a memory operation is slow, by up to {@link #memoryTailMaxNs} more. */
    public double memoryTailProbability;
    /** Longest extra time of a slow memory operation (above the fabric's timeout it times out). */
    public long memoryTailMaxNs;
    /** Hosts that may crash for good (fewer if the tolerance line would be crossed). */
    public int crashes;
    /** Pauses of a host's duty cycle: a slow JVM. */
    public int pauses;
    /** Longest pause. */
    public long pauseMaxNs;
    /** Probability that a pause hits the host of the leader of the moment. */
    public double pauseLeaderProbability;
    /** Mean time between two commands of one host's clients. */
    public long submitIntervalNs;
    /**
     * The hosts share one machine whose operating system tells a crashed JVM from a paused one (the
     * shm liveness locks): a crashed host's processes are surely dead, a paused one's surely run.
     * Otherwise nothing can be told, as across machines.
     */
    public boolean liveness;

    /**
     * Longest pause. Longer than a leader's stale bound (about 30 ms), so a paused leader is
     * replaced; short enough that, at {@link #MAX_COMMANDS_PER_SECOND}, a paused replica stays
     * within the decided logs' window of 256 slots and can catch up without a snapshot (which
     * replicas without a state directory cannot fetch).
     */
    public static final long MAX_PAUSE_NS = 320_000_000L;
    /** Most commands per second of the whole cluster. */
    public static final long MAX_COMMANDS_PER_SECOND = 640;

    /** Draws everything from {@code seed}; {@code n}, {@code perHost} > 0 fix those instead. */
    public static HostFaults fromSeed(final long seed, final int n, final int perHost)
    {
        final SplittableRandom r = new SplittableRandom(seed ^ 0x2545F4914F6CDD1DL);
        final HostFaults f = new HostFaults();
        final int drawnN = 12 + r.nextInt(21);
        final int drawnPerHost = 2 + r.nextInt(3);
        f.n = n > 0 ? n : drawnN;
        f.perHost = Math.min(f.n, perHost > 0 ? perHost : drawnPerHost);
        final int d = 3 + r.nextInt(3);
        f.degree = Math.min(f.n - 1, (f.n * d) % 2 == 0 ? d : d + 1);
        f.frameLoss = r.nextBoolean() ? r.nextDouble() * 0.05 : 0;
        f.frameDelayMaxNs = 100_000 + r.nextLong(5_000_000);
        f.memoryLatencyMinNs = 1_000 + r.nextLong(10_000);
        f.memoryLatencyMaxNs = f.memoryLatencyMinNs + r.nextLong(200_000);
        f.memoryTailProbability = r.nextBoolean() ? r.nextDouble() * 0.01 : 0;
        f.memoryTailMaxNs = 1_000_000 + r.nextLong(300_000_000);
        f.crashes = r.nextInt(4);
        f.pauses = r.nextInt(7);
        f.pauseMaxNs = 20_000_000 + r.nextLong(MAX_PAUSE_NS - 20_000_000);
        f.pauseLeaderProbability = r.nextDouble();
        final long commandsPerSecond = 40 + r.nextLong(MAX_COMMANDS_PER_SECOND - 40);
        f.submitIntervalNs = f.hosts() * 1_000_000_000L / commandsPerSecond;
        f.liveness = r.nextBoolean(); // drawn last: the draws above stay those of earlier builds
        return f;
    }

    /** @return hosts of the run. */
    public int hosts()
    {
        return (n + perHost - 1) / perHost;
    }

    @Override
    public String toString()
    {
        return String.format("HostFaults{n %d, %d hosts of %d, degree %d, frame loss %.3f delay<=%.1fms, memory %d..%dus " +
            "tail %.4f<=%dms, crashes<=%d, pauses %d<=%dms (leader's %.2f), a command per %.1fms per host, liveness %s}",
            n, hosts(), perHost, degree, frameLoss, frameDelayMaxNs / 1e6, memoryLatencyMinNs / 1_000,
            memoryLatencyMaxNs / 1_000, memoryTailProbability, memoryTailMaxNs / 1_000_000, crashes, pauses,
            pauseMaxNs / 1_000_000, pauseLeaderProbability, submitIntervalNs / 1e6, liveness ? "told" : "none");
    }
}
