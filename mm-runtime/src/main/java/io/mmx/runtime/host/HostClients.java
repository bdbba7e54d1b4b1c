package io.mmx.runtime.host;

/**
 * Outside clients' commands at this host (the node's UDP client endpoint), as the host drives them:
 * polled every duty cycle, ticked, and told when a hosted replica applied a client's command.
 */
public interface HostClients
{
    /** A host without outside clients. */
    HostClients NONE = new HostClients()
    {
        @Override
        public int poll()
        {
            return 0;
        }

        @Override
        public void onTick(final long tick)
        {
        }

        @Override
        public void onApplied(final int replica, final long clientId, final long seq, final byte[] reply)
        {
        }
    };

    /**
     * Takes the client frames that arrived.
     *
     * @return frames taken (work).
     */
    int poll();

    /** Moves windows, resends what stalled, drops what timed out. */
    void onTick(long tick);

    /** Hosted replica {@code replica} applied a client's command. */
    void onApplied(int replica, long clientId, long seq, byte[] reply);
}
