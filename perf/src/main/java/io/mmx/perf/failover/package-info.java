/** How long a cluster of real processes goes without commits when its leader's JVM is SIGKILLed, and whether leadership stays put on a busy machine. */
package io.mmx.perf.failover;
