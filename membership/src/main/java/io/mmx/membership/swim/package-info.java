/**
 * SWIM failure detection (Das, Gupta, Motivala 2002): one probe per protocol period in randomised
 * round-robin order, indirect probes through k members, suspicion with a timeout, incarnation numbers
 * and dissemination piggybacked on probes through a bounded buffer.
 */
package io.mmx.membership.swim;
