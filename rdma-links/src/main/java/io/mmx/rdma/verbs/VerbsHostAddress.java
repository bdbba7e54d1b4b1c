package io.mmx.rdma.verbs;

import java.net.InetSocketAddress;

/**
 * Where the host of a region listens: its rdma_cm address (an IP of its RDMA interface) and the
 * TCP address of its handshake listener ({@link VerbsHandshakeChannel}), normally the same IP.
 *
 * @param cm        rdma_cm address and port.
 * @param handshake handshake listener address and port.
 */
public record VerbsHostAddress(InetSocketAddress cm, InetSocketAddress handshake)
{
    /** The convention of {@code mmx memd --verbs-listen} and {@code mmx node --verbs}: the handshake on the next port. */
    public static VerbsHostAddress handshakeOnNextPort(final InetSocketAddress cm)
    {
        return new VerbsHostAddress(cm, new InetSocketAddress(cm.getHostString(), cm.getPort() + 1));
    }
}
