package io.mmx.perf.consensus;

/**
 * A kind of consensus system the benchmark can run, and the cluster sizes it is measured at.
 */
public interface ConsensusSystem
{
    /** @return the name in reports; {@link ConsensusSystems#BASELINE} for the baseline. */
    String name();

    /** @return member counts to measure, e.g. {3} for Aeron Cluster, {5, 32} for the mmx node. */
    int[] memberCounts();

    /**
     * @param members  one of {@link #memberCounts()}.
     * @param settings shared by every system of the run.
     * @return a log not yet started.
     */
    ReplicatedLog create(int members, LogSettings settings);
}
