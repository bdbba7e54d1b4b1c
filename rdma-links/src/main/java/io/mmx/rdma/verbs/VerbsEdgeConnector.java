package io.mmx.rdma.verbs;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * Opens the queue pair of one edge end for a {@link VerbsQueuePairs} pool, whose links of every era
 * share it: the CONNECT handshake of the first binding's era (the codec names its plan and era) and
 * rdma_cm, as {@link VerbsConnector} does, with scratch memory and a send queue for several bindings.
 * The later bindings' handshakes ({@link VerbsHandshake#OP_BIND}, {@link VerbsHandshake#OP_RELEASE})
 * need no native call and go over {@link #exchange}. {@link DisniVerbsConnector} is the implementation
 * over rdma_cm; tests use a software NIC.
 */
public interface VerbsEdgeConnector
{
    /**
     * Connects a new queue pair of process {@code self} to {@code owner}'s region host, granted the
     * region {@code codec} names ({@code op} {@link VerbsHandshake#OP_CONNECT}), or no region yet
     * ({@link VerbsHandshake#OP_OPEN}: connected ahead of the codec's era, whose region is bound on it
     * later; the connection's address, rkey and size are zero); never throws: a failure is a
     * {@link VerbsConnector.Connection} with a status.
     *
     * @param bindings links the queue pair carries at once: its scratch memory is
     *                 {@code bindings} × {@link VerbsRegionLink#SCRATCH_BYTES} and its send queue holds
     *                 every slot of each.
     */
    VerbsConnector.Connection connect(VerbsHandshake codec, byte op, int self, int owner, VerbsHostAddress host,
        int bindings);

    /**
     * One handshake exchange with a host's {@link VerbsHandshakeChannel}: the request's bytes out, the
     * reply's back.
     *
     * @throws IOException if the host is unreachable, closes without a full reply, or is slower than the timeout.
     */
    default byte[] exchange(final InetSocketAddress handshake, final byte[] request, final int timeoutMs)
        throws IOException
    {
        return VerbsHandshakeChannel.exchange(handshake, request, timeoutMs);
    }
}
