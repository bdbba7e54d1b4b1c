package io.mmx.rdma.verbs;

import io.mmx.rdma.fabric.OpStatus;
import org.agrona.concurrent.AtomicBuffer;

/**
 * Establishes the queue pair of one plan edge and learns where the owner's region is: the
 * handshake ({@link VerbsHandshake}, authenticated by the cluster key and checked against the
 * plan by the region's host) happens here, so that an rkey never reaches a non-neighbour.
 * {@link DisniVerbsConnector} is the implementation over rdma_cm.
 */
@FunctionalInterface
public interface VerbsConnector
{
    /** Connects to the region of {@code owner}; never throws: a failure is a {@link Connection} with a status. */
    Connection connect(int self, int owner);

    /**
     * The outcome of a handshake.
     *
     * @param status     OK, or why not (REGION_LOST, REGION_MISMATCH, BAD_CLUSTER_KEY, REFUSED_NOT_NEIGHBOUR,
     *                   NOT_CONNECTED).
     * @param message    one sentence explaining a failure.
     * @param queuePair  the connected QP when OK.
     * @param remoteBase virtual address of the owner's data area (after the region header).
     * @param rkey       the owner region's remote key for this edge.
     * @param dataBytes  size of the owner's data area.
     * @param scratch    registered local memory for work requests and results.
     * @param lkey       the local key of {@code scratch}.
     */
    record Connection(
        OpStatus status,
        String message,
        VerbsQueuePair queuePair,
        long remoteBase,
        int rkey,
        long dataBytes,
        AtomicBuffer scratch,
        int lkey)
    {
        /** A failed handshake. */
        public static Connection failed(final OpStatus status, final String message)
        {
            return new Connection(status, message, null, 0, 0, 0, null, 0);
        }
    }
}
