/**
 * Consensus benchmark: commit latency percentiles and throughput of a replicated log under closed-loop
 * load, every system against a 3-member Aeron Cluster measured in the same run
 * ({@link io.mmx.perf.consensus.ConsensusBenchmark}, {@code bin/perf consensus}).
 * <p>
 * A system plugs in as a {@link io.mmx.perf.consensus.ConsensusSystem} that creates
 * {@link io.mmx.perf.consensus.ReplicatedLog}s, registered in {@link io.mmx.perf.consensus.ConsensusSystems};
 * the {@link io.mmx.perf.consensus.LoadDriver} measures them all the same way.
 */
package io.mmx.perf.consensus;
