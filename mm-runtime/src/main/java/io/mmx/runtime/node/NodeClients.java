package io.mmx.runtime.node;

import io.mmx.runtime.host.HostClients;
import io.mmx.runtime.host.ProcessHost;

/** Outside clients at the node's UDP endpoint, as the host drives them. */
final class NodeClients implements HostClients
{
    private final ClientEndpoint endpoint;
    private final ClientCommands commands;
    private final ProcessReplica origin;

    NodeClients(final ClientEndpoint endpoint, final ProcessReplica[] replicaById, final ProcessReplica origin,
        final int proposalWords, final int maxPending, final long tickNs, final long submitTimeoutNs)
    {
        this.endpoint = endpoint;
        this.origin = origin;
        this.commands = new ClientCommands(replicaById, origin.id(), proposalWords, maxPending,
            Math.max(1, submitTimeoutNs / tickNs), Math.max(1, ProcessHost.RESUBMIT_NS / tickNs), endpoint);
    }

    @Override
    public int poll()
    {
        return endpoint.poll(commands::onCommand);
    }

    @Override
    public void onTick(final long tick)
    {
        commands.onTick(tick);
    }

    @Override
    public void onApplied(final int replica, final long clientId, final long seq, final byte[] reply)
    {
        commands.onApplied(replica, clientId, seq, reply);
    }

    /** The endpoint (metrics read it). */
    ClientEndpoint endpoint()
    {
        return endpoint;
    }

    /** Client frames and commands as JSON for the status. */
    String countersJson()
    {
        final String json = endpoint.countersJson();
        return json.substring(0, json.length() - 1) + ",\"duplicateFragments\":" +
            origin.clientSessions().duplicates() + ",\"sessions\":" + origin.clientSessions().sessionCount() + "}";
    }
}
