/**
 * Transport and membership benchmarks: Aeron round trips and message rate against a plain
 * DatagramChannel baseline, and membership message rate per process across cluster sizes.
 */
package io.mmx.perf.transport;
