/**
 * The consensus benchmark's baseline: an in-process Aeron Cluster on loopback with an acknowledging
 * service ({@link io.mmx.perf.consensus.aeroncluster.AeronClusterLog}).
 */
package io.mmx.perf.consensus.aeroncluster;
