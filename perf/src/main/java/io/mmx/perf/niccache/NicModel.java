package io.mmx.perf.niccache;

/**
 * A NIC as the model sees it: a QP-context cache and a throughput cost per miss.
 *
 * <p>Each reference costs {@code 1/peakOpsPerSec} of NIC time; a miss adds
 * {@code missPenaltyNs × weight(op)}. The weight says how much of the context fetch the op cannot
 * hide: a READ or CAS must wait for the context to build its response, a posted WRITE mostly
 * overlaps it. The penalty is therefore an effective throughput cost, not the PCIe round trip.
 *
 * @param name          preset name.
 * @param entries       QP contexts the cache holds.
 * @param ways          associativity.
 * @param peakOpsPerSec small one-sided ops per second with every context cached.
 * @param missPenaltyNs throughput cost of a miss for an op of weight 1.
 * @param readWeight    share of the penalty a READ pays.
 * @param writeWeight   share of the penalty a WRITE pays.
 * @param casWeight     share of the penalty a CAS pays.
 */
public record NicModel(
    String name,
    int entries,
    int ways,
    double peakOpsPerSec,
    double missPenaltyNs,
    double readWeight,
    double writeWeight,
    double casWeight)
{
    /** Validates every field at once. */
    public NicModel
    {
        if (entries < 1 || ways < 1 || entries % ways != 0)
        {
            throw new IllegalArgumentException("cache of " + entries + " entries and " + ways +
                " ways: entries must be a positive multiple of ways");
        }
        if (!(peakOpsPerSec > 0) || !(missPenaltyNs >= 0) || !(readWeight >= 0) || !(writeWeight >= 0) ||
            !(casWeight >= 0))
        {
            throw new IllegalArgumentException("peak rate must be positive and penalty and weights non-negative");
        }
    }

    /** A fresh, empty cache of this NIC's shape. */
    public QpContextCache newCache()
    {
        return new QpContextCache(entries, ways);
    }

    /** The penalty weight of {@code op}. */
    public double weight(final OpType op)
    {
        return switch (op)
        {
            case READ -> readWeight;
            case WRITE -> writeWeight;
            case CAS -> casWeight;
        };
    }

    /** NIC time per reference, averaged over a simulated mix. */
    public double meanServiceNs(final CacheOutcome outcome)
    {
        double penaltyNs = 0;
        for (final OpType op : OpType.values())
        {
            penaltyNs += outcome.missFraction(op) * weight(op) * missPenaltyNs;
        }
        return 1e9 / peakOpsPerSec + penaltyNs;
    }

    /** One-sided ops per second the NIC sustains for the simulated mix. */
    public double capacityOpsPerSec(final CacheOutcome outcome)
    {
        return 1e9 / meanServiceNs(outcome);
    }
}
