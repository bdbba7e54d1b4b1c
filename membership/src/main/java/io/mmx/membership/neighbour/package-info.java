/**
 * Neighbour monitoring through memory: heartbeat words in each process's region, read one-sided by
 * its plan neighbours.
 */
package io.mmx.membership.neighbour;
