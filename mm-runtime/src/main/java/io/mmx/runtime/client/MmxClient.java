package io.mmx.runtime.client;

import io.aeron.Aeron;
import io.aeron.CommonContext;
import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.Header;
import io.mmx.aeron.frame.FrameCounters;
import io.mmx.aeron.frame.FrameEncoder;
import io.mmx.aeron.frame.FrameHeader;
import io.mmx.aeron.frame.FrameVerifier;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A client of an mmx cluster that is not a member: it sends commands to members over Aeron UDP,
 * signed with the cluster's client key, and waits for the replica's reply.
 *
 * <pre>{@code
 * try (MmxClient client = MmxClient.connect(new MmxClient.Context()
 *     .endpoints(List.of("10.0.0.1:40100", "10.0.0.2:40100")).key(ClientKey.read(path))))
 * {
 *     byte[] reply = client.execute(command);   // applied exactly once, or an MmxClientException
 * }
 * }</pre>
 *
 * <p><b>Exactly once.</b> Each call runs in a session (a random 51-bit client id) with its own
 * sequence number. The command is logged as fragments named by (client id, sequence, fragment); every
 * replica keeps, per session, the last sequence applied and its reply, so a copy retried after a
 * timeout or a leader change is never applied twice, and the retry gets the first copy's reply.
 * A session has one command in flight; concurrent calls use separate sessions.
 *
 * <p><b>Leader.</b> Any member takes a command and forwards it to the leader it knows; every answer
 * names that leader's endpoint, and the client sends there from then on. A member that does not
 * answer within the retry interval is replaced by the next.
 *
 * <p><b>Outcomes.</b> {@link #execute} returns the reply once the command is applied, or throws
 * {@link MmxClientException}: REFUSED (not applied, never will be), UNKNOWN (a member took it but
 * it was not seen applied within the timeout; it may still apply, once) or NO_MEMBER_ANSWERED.
 *
 * <p>Thread-safe. Runs its own embedded Aeron media driver; {@link #close} removes it.
 */
public final class MmxClient implements AutoCloseable
{
    /** Settings of a client. */
    public static final class Context
    {
        private List<String> endpoints = List.of();
        private ClientKey key;
        private long timeoutNs = 10_000_000_000L;
        private long retryNs = 300_000_000L;
        private String bindHost;
        private int maxCommandBytes = 16 * 1024 * 1024;

        /** Members' message endpoints, HOST:PORT (the directory's endpoints). */
        public Context endpoints(final List<String> endpoints)
        {
            this.endpoints = List.copyOf(endpoints);
            return this;
        }

        /** The cluster's client key. */
        public Context key(final ClientKey key)
        {
            this.key = key;
            return this;
        }

        /** How long a call waits for its reply before its outcome is UNKNOWN (default 10 s). */
        public Context timeoutNs(final long timeoutNs)
        {
            this.timeoutNs = timeoutNs;
            return this;
        }

        /** How long without an answer before a command is sent again, to the next member (default 300 ms). */
        public Context retryNs(final long retryNs)
        {
            this.retryNs = retryNs;
            return this;
        }

        /** The address members send replies to (default: the local address that routes to the first member). */
        public Context bindHost(final String bindHost)
        {
            this.bindHost = bindHost;
            return this;
        }

        /** Largest command this client sends (default 16 MiB; members bound what they take). */
        public Context maxCommandBytes(final int maxCommandBytes)
        {
            this.maxCommandBytes = maxCommandBytes;
            return this;
        }

        private void check()
        {
            final List<String> errors = new ArrayList<>();
            if (endpoints.isEmpty())
            {
                errors.add("no member endpoints: pass HOST:PORT of at least one member");
            }
            for (final String e : endpoints)
            {
                final int colon = e.lastIndexOf(':');
                if (colon < 1 || !e.substring(colon + 1).matches("[0-9]{1,5}"))
                {
                    errors.add("endpoint '" + e + "' is not HOST:PORT");
                }
            }
            if (key == null)
            {
                errors.add("no client key: read one with ClientKey.read (written by 'mmx keys client')");
            }
            if (timeoutNs <= 0 || retryNs <= 0 || retryNs > timeoutNs)
            {
                errors.add("timeout and retry must be positive, retry at most the timeout");
            }
            if (!errors.isEmpty())
            {
                throw new IllegalArgumentException(String.join("; ", errors));
            }
        }
    }

    /** One call waiting for its answer: written by whichever thread polls, read by its caller. */
    private static final class Call
    {
        final long seq;
        volatile boolean answered;
        volatile int status = -1;
        volatile byte[] body;

        Call(final long seq)
        {
            this.seq = seq;
        }
    }

    private static final class Session
    {
        final long clientId;
        long seq;

        Session(final long clientId)
        {
            this.clientId = clientId;
        }
    }

    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;

    private final Context ctx;
    private final MediaDriver driver;
    private final Aeron aeron;
    private final Subscription subscription;
    private final byte[] replyEndpoint;
    private final ReentrantLock io = new ReentrantLock();
    private final Map<String, ExclusivePublication> publications = new HashMap<>();
    private final FrameCounters counters = new FrameCounters();
    private final FrameVerifier verifier;
    private final FrameEncoder encoder;
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[ClientWire.MAX_FRAME_BYTES]);
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[ClientWire.MAX_FRAME_BYTES]);
    private final FragmentAssembler assembler;
    private final Map<Long, Call> calls = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Session> idle = new ConcurrentLinkedQueue<>();
    private final SecureRandom random = new SecureRandom();
    private volatile String leader;
    private int nextEndpoint;

    private MmxClient(final Context ctx)
    {
        this.ctx = ctx;
        verifier = new FrameVerifier(ctx.key.frameKey(), ClientWire.MAX_FRAME_BYTES, counters);
        encoder = new FrameEncoder(ctx.key.frameKey(), System.currentTimeMillis() << 20);
        assembler = new FragmentAssembler(this::onFragment, ClientWire.MAX_FRAME_BYTES);
        nextEndpoint = random.nextInt(ctx.endpoints.size());
        final String host = ctx.bindHost != null ? ctx.bindHost : localAddressTowards(ctx.endpoints.get(0));
        MediaDriver d = null;
        Aeron a = null;
        try
        {
            d = MediaDriver.launchEmbedded(new MediaDriver.Context()
                .aeronDirectoryName(CommonContext.generateRandomDirName())
                .threadingMode(ThreadingMode.SHARED)
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true)
                .publicationTermBufferLength(ClientWire.TERM_LENGTH_BYTES)
                .ipcTermBufferLength(ClientWire.TERM_LENGTH_BYTES)
                .termBufferSparseFile(false));
            a = Aeron.connect(new Aeron.Context().aeronDirectoryName(d.aeronDirectoryName()));
            subscription = a.addSubscription("aeron:udp?endpoint=" + host + ":0", ClientWire.STREAM_ID);
            replyEndpoint = ClientWire.ascii(boundEndpoint(subscription, host));
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(a, d);
            throw ex;
        }
        driver = d;
        aeron = a;
    }

    /** Starts a client: its media driver and the endpoint replies come to. */
    public static MmxClient connect(final Context ctx)
    {
        ctx.check();
        return new MmxClient(ctx);
    }

    /**
     * Applies {@code command} exactly once through the cluster.
     *
     * @return the state machine's reply at the answering member's replica.
     * @throws MmxClientException when no reply came: its outcome says what is known.
     */
    public byte[] execute(final byte[] command) throws MmxClientException
    {
        if (command.length > ctx.maxCommandBytes)
        {
            throw new MmxClientException(MmxClientException.Outcome.REFUSED, "a command of " + command.length +
                " bytes, this client sends at most " + ctx.maxCommandBytes);
        }
        Session session = idle.poll();
        if (session == null)
        {
            session = new Session(random.nextLong() & ClientWire.MAX_CLIENT_ID);
        }
        try
        {
            if (session.seq == ClientWire.MAX_SEQ)
            {
                session = new Session(random.nextLong() & ClientWire.MAX_CLIENT_ID);
            }
            return call(session, ++session.seq, command);
        }
        finally
        {
            idle.offer(session);
        }
    }

    private byte[] call(final Session session, final long seq, final byte[] command) throws MmxClientException
    {
        final Call call = new Call(seq);
        calls.put(session.clientId, call);
        try
        {
            final long start = System.nanoTime();
            final long deadline = start + ctx.timeoutNs;
            // A large command takes longer to arrive and to commit: wait longer before sending it again.
            long retry = ctx.retryNs + 1_000_000L * (command.length / 16384);
            boolean everAnswered = false;
            String target = null;
            long nextSend = start;
            while (true)
            {
                final long now = System.nanoTime();
                final int status = call.status;
                if (status >= 0)
                {
                    if (status == ClientWire.APPLIED)
                    {
                        return call.body;
                    }
                    if (status == ClientWire.REFUSED || status == ClientWire.STALE)
                    {
                        throw new MmxClientException(MmxClientException.Outcome.REFUSED, status == ClientWire.STALE ?
                            "command " + seq + " of session " + session.clientId + " will never apply: the session " +
                            "applied a later one" : "refused by " + target + ": " +
                            new String(call.body, StandardCharsets.UTF_8));
                    }
                    // ACCEPTED: the member holds the command and is getting it committed; send again later.
                    call.status = -1;
                    retry = Math.min(2 * retry, 2_000_000_000L);
                    nextSend = now + retry;
                }
                everAnswered |= call.answered;
                if (now - deadline >= 0)
                {
                    throw new MmxClientException(everAnswered ? MmxClientException.Outcome.UNKNOWN :
                        MmxClientException.Outcome.NO_MEMBER_ANSWERED, everAnswered ? "command " + seq + " of session " +
                        session.clientId + " not seen applied within " + ctx.timeoutNs / 1_000_000 + " ms; it may " +
                        "still apply (once)" : "no member answered within " + ctx.timeoutNs / 1_000_000 + " ms (tried " +
                        String.join(", ", ctx.endpoints) + "): is the cluster running, and is the client key its own?");
                }
                if (now - nextSend >= 0)
                {
                    // No answer since the last send: that member is gone or cut off, try the next.
                    target = target == null || !call.answered ? nextTarget(target) :
                        leader != null ? leader : target;
                    call.answered = false;
                    final boolean sent = send(target, session.clientId, seq, command, deadline);
                    nextSend = now + (sent ? retry : Math.min(retry, 50_000_000L));
                }
                if (poll() == 0)
                {
                    LockSupport.parkNanos(50_000);
                }
            }
        }
        finally
        {
            calls.remove(session.clientId);
        }
    }

    /** The leader if one is known and it did not just fail to answer; else the next endpoint in turn. */
    private synchronized String nextTarget(final String failed)
    {
        final String l = leader;
        if (l != null && !l.equals(failed))
        {
            return l;
        }
        if (l != null)
        {
            leader = null;
        }
        String e = ctx.endpoints.get(nextEndpoint);
        nextEndpoint = (nextEndpoint + 1) % ctx.endpoints.size();
        if (e.equals(failed) && ctx.endpoints.size() > 1)
        {
            e = ctx.endpoints.get(nextEndpoint);
            nextEndpoint = (nextEndpoint + 1) % ctx.endpoints.size();
        }
        return e;
    }

    /** Sends every chunk of the command; false if the member's path is not connected or stays back-pressured. */
    private boolean send(final String target, final long clientId, final long seq, final byte[] command,
        final long deadline)
    {
        io.lock();
        try
        {
            final ExclusivePublication publication = publication(target);
            if (publication == null || !publication.isConnected())
            {
                return false;
            }
            int offset = 0;
            do
            {
                final int length = ClientWire.encodeRequest(payload, clientId, seq, command, offset, replyEndpoint);
                final int frameLength = encoder.encode(frame, 0, ClientWire.REQUEST, -1, -1, payload, 0, length);
                while (true)
                {
                    final long result = publication.offer(frame, 0, frameLength);
                    if (result > 0)
                    {
                        break;
                    }
                    if (result == Publication.NOT_CONNECTED || result == Publication.CLOSED ||
                        result == Publication.MAX_POSITION_EXCEEDED || System.nanoTime() - deadline >= 0)
                    {
                        return false;
                    }
                    // Back-pressured: the member reads at its own pace; take replies meanwhile.
                    pollLocked();
                    Thread.onSpinWait();
                }
                offset += ClientWire.CHUNK_BYTES;
            }
            while (offset < command.length);
            return true;
        }
        finally
        {
            io.unlock();
        }
    }

    private ExclusivePublication publication(final String endpoint)
    {
        ExclusivePublication p = publications.get(endpoint);
        if (p == null)
        {
            p = ClientWire.publication(aeron, endpoint);
            if (p == null)
            {
                return null; // an endpoint the driver cannot resolve: the next member is tried
            }
            publications.put(endpoint, p);
            // A new path connects within a few round trips; wait briefly so the first send is not lost.
            final long until = System.nanoTime() + 200_000_000L;
            while (!p.isConnected() && System.nanoTime() - until < 0)
            {
                LockSupport.parkNanos(100_000);
            }
        }
        return p;
    }

    private int poll()
    {
        if (!io.tryLock())
        {
            return 0;
        }
        try
        {
            return pollLocked();
        }
        finally
        {
            io.unlock();
        }
    }

    private int pollLocked()
    {
        return subscription.poll(assembler, 16);
    }

    private void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        if (verifier.verify(buffer, offset, length) != null)
        {
            return;
        }
        final FrameHeader h = verifier.header();
        final int at = h.payloadOffset();
        final int n = h.payloadLength();
        if (h.type() != ClientWire.REPLY || n < ClientWire.REPLY_HEADER_BYTES)
        {
            return;
        }
        final long clientId = buffer.getLong(at, LE);
        final long seq = buffer.getLong(at + 8, LE);
        final int status = buffer.getByte(at + 16) & 0xFF;
        final int leaderLength = buffer.getShort(at + 17, LE) & 0xFFFF;
        if (ClientWire.REPLY_HEADER_BYTES + leaderLength > n || status > ClientWire.STALE)
        {
            return;
        }
        if (leaderLength > 0)
        {
            leader = buffer.getStringWithoutLengthAscii(at + ClientWire.REPLY_HEADER_BYTES, leaderLength);
        }
        final Call call = calls.get(clientId);
        if (call == null || call.seq != seq)
        {
            return;
        }
        final byte[] body = new byte[n - ClientWire.REPLY_HEADER_BYTES - leaderLength];
        buffer.getBytes(at + ClientWire.REPLY_HEADER_BYTES + leaderLength, body);
        call.body = body;
        call.answered = true;
        call.status = status;
    }

    /** The member this client sends to first: the leader's endpoint as the last answer named it. */
    public String leaderEndpoint()
    {
        return leader;
    }

    /** Frames from members accepted and refused (a reply that fails its tag is dropped and counted). */
    public FrameCounters counters()
    {
        return counters;
    }

    @Override
    public void close()
    {
        io.lock();
        try
        {
            CloseHelper.quietCloseAll(publications.values());
            publications.clear();
            CloseHelper.closeAll(aeron, driver);
        }
        finally
        {
            io.unlock();
        }
    }

    /** The local address a datagram to {@code endpoint} leaves from (no packet is sent). */
    private static String localAddressTowards(final String endpoint)
    {
        final int colon = endpoint.lastIndexOf(':');
        try (DatagramSocket socket = new DatagramSocket())
        {
            socket.connect(new InetSocketAddress(endpoint.substring(0, colon),
                Integer.parseInt(endpoint.substring(colon + 1))));
            final java.net.InetAddress local = socket.getLocalAddress();
            return local == null || local.isAnyLocalAddress() ? "127.0.0.1" : local.getHostAddress();
        }
        catch (final java.io.IOException | IllegalArgumentException ex)
        {
            return "127.0.0.1";
        }
    }

    /** HOST:PORT of a subscription bound to an ephemeral port, once the driver has bound it. */
    private static String boundEndpoint(final Subscription subscription, final String host)
    {
        final long until = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() - until < 0)
        {
            final List<String> bound = subscription.localSocketAddresses();
            if (!bound.isEmpty())
            {
                final String address = bound.get(0);
                return host + address.substring(address.lastIndexOf(':'));
            }
            LockSupport.parkNanos(1_000_000);
        }
        throw new IllegalStateException("the client's reply endpoint on " + host + " was not bound within 5 s");
    }
}
