package io.mmx.rdma.verbs;

import io.mmx.rdma.fabric.OpStatus;

import java.util.concurrent.TimeUnit;

/**
 * The connection set-up of one plan edge as a state machine driven by events, with no native
 * call of its own: rdma_cm events, the handshake reply and the clock go in; the next step goes
 * out through {@link Actions}. Tests feed events directly; {@link DisniVerbsConnector} feeds it
 * from DiSNI's event channel.
 *
 * <pre>
 * RESOLVING_ADDR --ADDR_RESOLVED--> ADDR_RESOLVED --ROUTE_RESOLVED--> ROUTE_RESOLVED (handshake sent)
 *   --grant--> CONNECTING --ESTABLISHED--> ESTABLISHED
 * refusal in the reply: REFUSED; REJECTED event: REJECTED; deadline passed: TIMED_OUT;
 * any error event, failed step or unexpected event: FAILED
 * </pre>
 *
 * The handshake goes after route resolution and before the connect, because the grant must be
 * waiting at the host when the connection request arrives ({@link VerbsEdgeAcceptor}). Every
 * end other than ESTABLISHED releases what was created ({@link Actions#abort()}) exactly once,
 * and leaves one sentence naming the edge, the stage and the fix.
 */
public final class VerbsConnectAttempt
{
    /** Where the attempt is. */
    public enum State
    {
        /** rdma_resolve_addr issued. */
        RESOLVING_ADDR,
        /** Address resolved; rdma_resolve_route issued. */
        ADDR_RESOLVED,
        /** Route resolved; handshake request sent, waiting for the grant. */
        ROUTE_RESOLVED,
        /** Granted; QP created and rdma_connect issued. */
        CONNECTING,
        /** The queue pair is connected. */
        ESTABLISHED,
        /** The host refused the handshake (not a neighbour, wrong key or plan, no region). */
        REFUSED,
        /** The host rejected the rdma_cm connection request. */
        REJECTED,
        /** The deadline passed. */
        TIMED_OUT,
        /** An error event, a failed step, or an event that does not belong here. */
        FAILED;

        /** True for the states an attempt ends in. */
        public boolean terminal()
        {
            return ordinal() >= ESTABLISHED.ordinal();
        }
    }

    /** The steps the machine asks for; native in production, recorded in tests. */
    public interface Actions
    {
        /** rdma_resolve_addr to the owner's host. */
        void resolveAddr() throws Exception;

        /** rdma_resolve_route. */
        void resolveRoute() throws Exception;

        /** The rdma_cm source port chosen by address resolution (the host matches the connection by it). */
        int localCmPort() throws Exception;

        /** Sends the handshake request; the reply comes back through {@link #onHandshakeReply}. */
        void sendHandshake(byte[] request) throws Exception;

        /** Creates the RC queue pair and issues rdma_connect. */
        void connect() throws Exception;

        /** Releases whatever was created (QP, CM id, channel); called once, on any end but ESTABLISHED. */
        void abort();
    }

    private final int self;
    private final int owner;
    private final String peer;
    private final VerbsHandshake codec;
    private final byte op;
    private final long nonce;
    private final long timeoutNs;
    private final long deadlineNs;
    private final Actions actions;
    private State state = State.RESOLVING_ADDR;
    private VerbsHandshake.Grant grant;
    private OpStatus refusal = OpStatus.NOT_CONNECTED;
    private String message;

    /**
     * @param self      the requesting process.
     * @param owner     the process whose region is wanted.
     * @param peer      the host's rdma_cm address, for messages.
     * @param codec     the handshake codec under the cluster key and plan.
     * @param nonce     fresh for this attempt (from a SecureRandom).
     * @param nowNs     the time the attempt starts.
     * @param timeoutNs how long the whole set-up may take.
     * @param actions   the steps.
     */
    public VerbsConnectAttempt(
        final int self,
        final int owner,
        final String peer,
        final VerbsHandshake codec,
        final long nonce,
        final long nowNs,
        final long timeoutNs,
        final Actions actions)
    {
        this(self, owner, peer, codec, VerbsHandshake.OP_CONNECT, nonce, nowNs, timeoutNs, actions);
    }

    /**
     * An attempt whose handshake is {@code op}: {@link VerbsHandshake#OP_CONNECT} (the queue pair and
     * the codec's era's region on it) or {@link VerbsHandshake#OP_OPEN} (the queue pair only, ahead of
     * that era; its grant names no region).
     */
    public VerbsConnectAttempt(
        final int self,
        final int owner,
        final String peer,
        final VerbsHandshake codec,
        final byte op,
        final long nonce,
        final long nowNs,
        final long timeoutNs,
        final Actions actions)
    {
        if (op != VerbsHandshake.OP_CONNECT && op != VerbsHandshake.OP_OPEN)
        {
            throw new IllegalArgumentException("a connection attempt's handshake is CONNECT or OPEN, not " + op);
        }
        this.op = op;
        this.self = self;
        this.owner = owner;
        this.peer = peer;
        this.codec = codec;
        this.nonce = nonce;
        this.timeoutNs = timeoutNs;
        this.deadlineNs = nowNs + timeoutNs;
        this.actions = actions;
        this.message = edge() + " is resolving the address";
    }

    /** Issues the first step. */
    public void start()
    {
        step("resolving the address", actions::resolveAddr);
    }

    /** Feeds one rdma_cm event of this attempt's CM id. */
    public void onCmEvent(final CmEvent event, final long nowNs)
    {
        if (state.terminal())
        {
            return;
        }
        if (event == CmEvent.DEVICE_REMOVAL || event == CmEvent.DISCONNECTED)
        {
            fail(State.FAILED, edge() + " lost the RDMA connection (" + event + ") while " + stage() +
                "; it is retried on the next operation");
            return;
        }
        switch (state)
        {
            case RESOLVING_ADDR:
                if (event == CmEvent.ADDR_RESOLVED)
                {
                    state = State.ADDR_RESOLVED;
                    step("resolving the route", actions::resolveRoute);
                }
                else if (event == CmEvent.ADDR_ERROR)
                {
                    fail(State.FAILED, edge() + " cannot resolve " + peer + " to an RDMA device (ADDR_ERROR): give " +
                        "the host's address on its RDMA interface (RoCE or IPoIB), as `rdma link` lists it");
                }
                else
                {
                    unexpected(event);
                }
                break;
            case ADDR_RESOLVED:
                if (event == CmEvent.ROUTE_RESOLVED)
                {
                    state = State.ROUTE_RESOLVED;
                    step("sending the handshake", () -> actions.sendHandshake(
                        codec.request(op, self, owner, actions.localCmPort(), nonce)));
                }
                else if (event == CmEvent.ROUTE_ERROR)
                {
                    fail(State.FAILED, edge() + " has no route to " + peer + " (ROUTE_ERROR): check the RDMA " +
                        "network between the hosts (subnet manager on InfiniBand, IP routing and GIDs on RoCE)");
                }
                else
                {
                    unexpected(event);
                }
                break;
            case CONNECTING:
                if (event == CmEvent.ESTABLISHED)
                {
                    state = State.ESTABLISHED;
                    refusal = OpStatus.OK;
                    message = edge() + " is connected";
                }
                else if (event == CmEvent.REJECTED)
                {
                    fail(State.REJECTED, edge() + " was rejected by " + peer + " after its grant (the grant expired " +
                        "or the host restarted); it is retried on the next operation");
                }
                else if (event == CmEvent.UNREACHABLE || event == CmEvent.CONNECT_ERROR)
                {
                    fail(State.FAILED, edge() + " could not connect to " + peer + " (" + event + "): the host's " +
                        "NIC did not answer; check that the host is up and its listener runs");
                }
                else
                {
                    unexpected(event);
                }
                break;
            default:
                unexpected(event);
                break;
        }
    }

    /** Feeds the host's answer to the handshake. */
    public void onHandshakeReply(final byte[] bytes, final int length, final long nowNs)
    {
        if (state != State.ROUTE_RESOLVED)
        {
            if (!state.terminal())
            {
                fail(State.FAILED, edge() + " received a handshake reply while " + stage() + ": refused; it is " +
                    "retried on the next operation");
            }
            return;
        }
        final VerbsHandshake.Grant g = codec.parseReply(bytes, length, op, self, owner, nonce);
        if (g.status() != OpStatus.OK)
        {
            refusal = g.status();
            fail(State.REFUSED, g.message());
            return;
        }
        grant = g;
        state = State.CONNECTING;
        step("connecting", actions::connect);
    }

    /** The handshake could not be delivered or answered (side channel closed, timed out). */
    public void onHandshakeFailed(final String why, final long nowNs)
    {
        if (state == State.ROUTE_RESOLVED)
        {
            fail(State.FAILED, edge() + " got no handshake reply from " + peer + " (" + why + "): check that the " +
                "host's verbs listener runs; it is retried on the next operation");
        }
    }

    /** Checks the deadline; returns true once the attempt has ended. */
    public boolean onTick(final long nowNs)
    {
        if (!state.terminal() && nowNs - deadlineNs >= 0)
        {
            fail(State.TIMED_OUT, edge() + " timed out after " + TimeUnit.NANOSECONDS.toMillis(timeoutNs) +
                " ms " + stage() + " (" + peer + "): check that the host is up and reachable over RDMA; it is " +
                "retried on the next operation");
        }
        return state.terminal();
    }

    /** Where the attempt is. */
    public State state()
    {
        return state;
    }

    /** OK once established; the host's refusal when refused; NOT_CONNECTED otherwise (the link retries). */
    public OpStatus status()
    {
        return refusal;
    }

    /** One sentence describing the current state. */
    public String message()
    {
        return message;
    }

    /** The host's grant, once the handshake succeeded. */
    public VerbsHandshake.Grant grant()
    {
        return grant;
    }

    private void step(final String what, final Step step)
    {
        try
        {
            step.run();
        }
        catch (final Exception ex)
        {
            fail(State.FAILED, edge() + " failed " + what + " (" + ex.getMessage() + "): check the RDMA device " +
                "and the host address; it is retried on the next operation");
        }
    }

    private void unexpected(final CmEvent event)
    {
        fail(State.FAILED, edge() + " got rdma_cm event " + event + " while " + stage() +
            ", which does not belong there; it is retried on the next operation");
    }

    private void fail(final State end, final String why)
    {
        state = end;
        message = why;
        if (refusal == OpStatus.OK)
        {
            refusal = OpStatus.NOT_CONNECTED;
        }
        actions.abort();
    }

    private String stage()
    {
        switch (state)
        {
            case RESOLVING_ADDR:
                return "waiting for ADDR_RESOLVED";
            case ADDR_RESOLVED:
                return "waiting for ROUTE_RESOLVED";
            case ROUTE_RESOLVED:
                return "waiting for the handshake reply";
            case CONNECTING:
                return "waiting for ESTABLISHED";
            default:
                return "in state " + state;
        }
    }

    private String edge()
    {
        return "the connection of process " + self + " to the region of process " + owner;
    }

    @FunctionalInterface
    private interface Step
    {
        void run() throws Exception;
    }
}
