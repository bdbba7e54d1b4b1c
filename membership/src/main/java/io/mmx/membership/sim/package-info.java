/**
 * Deterministic single-threaded simulation of membership alone: n sans-IO nodes, a seeded network
 * with delay and loss, memory heartbeat words, crashes. Runs n = 4096.
 */
package io.mmx.membership.sim;
