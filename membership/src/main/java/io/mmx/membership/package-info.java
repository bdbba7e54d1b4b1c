/**
 * Membership for mmx, sans-IO: failure detection (memory heartbeats between plan neighbours, SWIM
 * across the cluster), eventual leader election (Ω) and plan activation. Time is ticks passed in,
 * randomness a seeded generator passed in, and messages leave through an {@link io.mmx.membership.Outbox}.
 */
package io.mmx.membership;
