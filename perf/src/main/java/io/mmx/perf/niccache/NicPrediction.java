package io.mmx.perf.niccache;

/**
 * What the model predicts for one NIC under one access pattern.
 *
 * @param nic              the NIC (host) index.
 * @param qps              QPs established on it.
 * @param offeredOpsPerSec one-sided ops per second the protocol asks of it.
 * @param outcome          simulated references and misses.
 * @param capacityOpsPerSec ops per second it sustains for this mix and miss rate.
 */
public record NicPrediction(int nic, int qps, double offeredOpsPerSec, CacheOutcome outcome, double capacityOpsPerSec)
{
    /** Ops per second it actually carries: the offer, capped by capacity. */
    public double predictedOpsPerSec()
    {
        return Math.min(offeredOpsPerSec, capacityOpsPerSec);
    }

    /** Offered over capacity; above 1 the NIC is the bottleneck. */
    public double utilisation()
    {
        return offeredOpsPerSec / capacityOpsPerSec;
    }

    /**
     * Simulates {@code nic} of {@code pattern} on {@code model}.
     *
     * @param measuredReferences references counted after a warm-up of max(200,000, 4 × QPs).
     */
    public static NicPrediction predict(
        final AccessPattern pattern, final int nic, final NicModel model, final long seed,
        final long measuredReferences)
    {
        final int qps = pattern.qpCount(nic);
        final long warmup = Math.max(200_000L, 4L * qps);
        final CacheOutcome outcome = CacheSimulation.run(
            pattern.open(nic, seed), model.newCache(), warmup, measuredReferences);
        return new NicPrediction(nic, qps, pattern.offeredOpsPerSec(nic), outcome,
            model.capacityOpsPerSec(outcome));
    }
}
