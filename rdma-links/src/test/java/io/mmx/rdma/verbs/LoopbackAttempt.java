package io.mmx.rdma.verbs;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Runs a requester's {@link VerbsConnectAttempt} against a real {@link VerbsHandshakeChannel} on
 * loopback with rdma_cm's events simulated: address and route resolve at once, the handshake goes
 * over TCP, and {@code connect} stands for the host's side of rdma_accept. Returns the attempt
 * once it is CONNECTING (the caller feeds ESTABLISHED or REJECTED) or has ended.
 */
final class LoopbackAttempt
{
    private LoopbackAttempt()
    {
    }

    static VerbsConnectAttempt run(
        final int self,
        final int owner,
        final VerbsHandshake codec,
        final long nonce,
        final InetSocketAddress handshake,
        final int cmPort,
        final int timeoutMs,
        final Runnable connect)
    {
        return run(self, owner, codec, VerbsHandshake.OP_CONNECT, nonce, handshake, cmPort, timeoutMs, connect);
    }

    /** As {@link #run(int, int, VerbsHandshake, long, InetSocketAddress, int, int, Runnable)} with handshake {@code op}. */
    static VerbsConnectAttempt run(
        final int self,
        final int owner,
        final VerbsHandshake codec,
        final byte op,
        final long nonce,
        final InetSocketAddress handshake,
        final int cmPort,
        final int timeoutMs,
        final Runnable connect)
    {
        final VerbsConnectAttempt[] attempt = new VerbsConnectAttempt[1];
        attempt[0] = new VerbsConnectAttempt(self, owner, handshake.toString(), codec, op, nonce, System.nanoTime(),
            TimeUnit.MILLISECONDS.toNanos(timeoutMs), new VerbsConnectAttempt.Actions()
            {
                @Override
                public void resolveAddr()
                {
                }

                @Override
                public void resolveRoute()
                {
                }

                @Override
                public int localCmPort()
                {
                    return cmPort;
                }

                @Override
                public void sendHandshake(final byte[] request)
                {
                    try
                    {
                        final byte[] reply = VerbsHandshakeChannel.exchange(handshake, request, timeoutMs);
                        attempt[0].onHandshakeReply(reply, reply.length, System.nanoTime());
                    }
                    catch (final IOException ex)
                    {
                        attempt[0].onHandshakeFailed(ex.getMessage(), System.nanoTime());
                    }
                }

                @Override
                public void connect()
                {
                    connect.run();
                }

                @Override
                public void abort()
                {
                }
            });
        attempt[0].start();
        attempt[0].onCmEvent(CmEvent.ADDR_RESOLVED, System.nanoTime());
        attempt[0].onCmEvent(CmEvent.ROUTE_RESOLVED, System.nanoTime());
        return attempt[0];
    }
}
