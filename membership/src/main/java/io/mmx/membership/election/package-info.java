/**
 * Eventual leader election (Ω) by gossiped, aging leader claims: the lowest id with a fresh claim leads.
 */
package io.mmx.membership.election;
