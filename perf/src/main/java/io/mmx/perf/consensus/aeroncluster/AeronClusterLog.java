package io.mmx.perf.consensus.aeroncluster;

import io.aeron.Publication;
import io.aeron.cluster.client.AeronCluster;
import io.aeron.cluster.client.ClusterException;
import io.aeron.cluster.client.EgressListener;
import io.aeron.driver.MediaDriver;
import io.aeron.exceptions.TimeoutException;
import io.aeron.logbuffer.Header;
import io.mmx.aeron.transport.TransportContext;
import io.mmx.perf.consensus.CommitListener;
import io.mmx.perf.consensus.LogSettings;
import io.mmx.perf.consensus.ReplicatedLog;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.IoUtil;

import java.io.File;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The baseline: an Aeron Cluster of {@code n} members on loopback and one {@link AeronCluster} client,
 * all in this JVM. The client offers each command on the ingress; the leader's {@link AckService} answers
 * on the egress once the command is committed, and that answer is the commit.
 * <p>
 * Members run in-process, each with its own media driver directory, archive, consensus module and
 * service container, talking UDP over 127.0.0.1 as separate machines would. In-process rather than child
 * JVMs because: start and shutdown are bounded and leave no orphan processes if the run is killed; two
 * cores cannot give three JVMs a core each anyway, so isolation would buy only separate heaps and JITs
 * while adding three JIT warm-ups; and the mmx node adapter plugs into the same in-process harness. The
 * cost is a shared heap: a GC pause stops every member at once (it would stall a quorum either way).
 * <p>
 * Media driver directories live under /dev/shm (tmpfs), as Aeron's defaults do on Linux; archive and
 * cluster files under {@link LogSettings#workDir()}. Both are deleted by {@link #close()}.
 */
public final class AeronClusterLog implements ReplicatedLog
{
    /** Name in reports. */
    public static final String NAME = "aeron-cluster";
    /** UDP ports per member, in Aeron's member-list order: ingress, consensus, log, catchup, archive control. */
    private static final int PORTS_PER_MEMBER = 5;
    private static final int INGRESS_PORT = 0;
    private static final int ARCHIVE_PORT = 4;
    /** Shared-mode driver, shared-mode archive, consensus module, service container. */
    private static final int AGENT_THREADS_PER_MEMBER = 4;
    private static final long CONNECT_ATTEMPT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);

    private final int members;
    /** Idle strategy of every agent: the run's, or backoff, Aeron Cluster's own choice here. */
    private final String idle;
    private final LogSettings settings;
    private final List<AeronClusterMember> started = new ArrayList<>();
    private final Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
    private final EgressListener egressListener = this::onEgress;
    private Path driversDir;
    private MediaDriver clientDriver;
    private AeronCluster client;
    private CommitListener commitListener;

    /**
     * @param members  member count, odd, 1..9.
     * @param settings idle strategy, work directory and start timeout.
     */
    public AeronClusterLog(final int members, final LogSettings settings)
    {
        if (members < 1 || members > 9 || members % 2 == 0)
        {
            throw new IllegalArgumentException("Aeron Cluster baseline takes an odd member count 1..9, got " + members);
        }
        this.members = members;
        this.idle = settings.idleStrategy() == null ? "backoff" : settings.idleStrategy();
        this.settings = settings;
    }

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public int members()
    {
        return members;
    }

    @Override
    public void start() throws IOException
    {
        final long deadlineNs = System.nanoTime() + settings.startTimeoutNs();
        final File shm = new File("/dev/shm");
        driversDir = shm.isDirectory() ?
            Files.createTempDirectory(shm.toPath(), "mmx-aeron-cluster-") :
            Files.createTempDirectory(settings.workDir(), "drivers-");

        final int[] ports = LoopbackPorts.reserve(PORTS_PER_MEMBER * members);
        final StringBuilder clusterMembers = new StringBuilder();
        final StringBuilder ingressEndpoints = new StringBuilder();
        for (int m = 0; m < members; m++)
        {
            clusterMembers.append(m);
            for (int p = 0; p < PORTS_PER_MEMBER; p++)
            {
                clusterMembers.append(',').append(endpoint(ports[m * PORTS_PER_MEMBER + p]));
            }
            clusterMembers.append('|');
            ingressEndpoints.append(m == 0 ? "" : ",").append(m).append('=')
                .append(endpoint(ports[m * PORTS_PER_MEMBER + INGRESS_PORT]));
        }
        for (int m = 0; m < members; m++)
        {
            final int archivePort = ports[m * PORTS_PER_MEMBER + ARCHIVE_PORT];
            started.add(AeronClusterMember.launch(m, clusterMembers.toString(), archivePort, memberDir(m),
                driversDir.resolve("member-" + m).toString(), idle, errors::add));
        }
        clientDriver = MediaDriver.launch(AeronClusterMember.driverContext(
            driversDir.resolve("client").toString(), idle, errors::add));
        client = connect(ingressEndpoints.toString(), deadlineNs);
    }

    /** Retries the connect until a leader answers: the first election runs while we wait. */
    private AeronCluster connect(final String ingressEndpoints, final long deadlineNs)
    {
        while (true)
        {
            final long remainingNs = deadlineNs - System.nanoTime();
            try
            {
                return AeronCluster.connect(new AeronCluster.Context()
                    .aeronDirectoryName(clientDriver.aeronDirectoryName())
                    .ingressChannel("aeron:udp?term-length=" + AeronClusterMember.TERM_LENGTH_BYTES)
                    .ingressEndpoints(ingressEndpoints)
                    .egressChannel("aeron:udp?endpoint=" + LoopbackPorts.HOST + ":0|term-length=" +
                        AeronClusterMember.TERM_LENGTH_BYTES)
                    .egressListener(egressListener)
                    .idleStrategy(TransportContext.idleStrategy(idle))
                    .messageTimeoutNs(Math.max(TimeUnit.MILLISECONDS.toNanos(100),
                        Math.min(remainingNs, CONNECT_ATTEMPT_TIMEOUT_NS)))
                    .errorHandler(errors::add));
            }
            catch (final TimeoutException | ClusterException ex)
            {
                if (System.nanoTime() - deadlineNs >= 0)
                {
                    throw new IllegalStateException("Aeron Cluster of " + members + " members elected no leader " +
                        "that accepted a client within " + TimeUnit.NANOSECONDS.toSeconds(settings.startTimeoutNs()) +
                        " s; member errors: " + errors.size(), ex);
                }
            }
        }
    }

    @Override
    public boolean submit(final long commandId, final DirectBuffer payload, final int offset, final int length)
    {
        final long position = client.offer(payload, offset, length);
        if (position > 0)
        {
            return true;
        }
        if (position == Publication.CLOSED || position == Publication.MAX_POSITION_EXCEEDED)
        {
            throw new IllegalStateException("Aeron Cluster ingress can take no more commands: offer returned " +
                Publication.errorString(position));
        }
        // Back-pressured, or between leaders: pollEgress reconnects, then the driver offers again.
        return false;
    }

    @Override
    public int poll(final CommitListener listener)
    {
        commitListener = listener;
        return client.pollEgress();
    }

    private void onEgress(
        final long clusterSessionId,
        final long timestamp,
        final DirectBuffer buffer,
        final int offset,
        final int length,
        final Header header)
    {
        commitListener.onCommitted(buffer.getLong(offset, ByteOrder.LITTLE_ENDIAN));
    }

    /**
     * The leadership term the client follows (-1 before it connected): a change means an election
     * ran, and commands in flight across it may never be answered (this baseline does not send them again).
     */
    public long leadershipTermId()
    {
        return client == null ? -1 : client.leadershipTermId();
    }

    @Override
    public String diagnostics()
    {
        // The thread count is what the cores are shared by: on 2 cores it, not the protocol, sets the tails.
        return "leader member " + (client == null ? "none" : client.leaderMemberId() + " (term " +
            client.leadershipTermId() + (client.isClosed() ? ", client closed" : "") + ")") + "; " +
            (AGENT_THREADS_PER_MEMBER * members + 2) + " threads (driver, archive, consensus module and service " +
            "per member, the client's driver, the load thread) on " + Runtime.getRuntime().availableProcessors() +
            " cores; commands applied per member so far (followers may trail) " +
            Arrays.toString(appliedPerMember()) + "; " + errors.size() + " errors reported by members or client" +
            (errors.isEmpty() ? "" : " (first: " + errors.peek() + ")");
    }

    /** @return commands applied by each member's service, by member id. */
    public long[] appliedPerMember()
    {
        return started.stream().mapToLong(AeronClusterMember::applied).toArray();
    }

    /** @return errors reported by any member, driver or the client so far. */
    public List<Throwable> errors()
    {
        return List.copyOf(errors);
    }

    /** @return where the media drivers' directories are, once started (tests check it is gone after close). */
    Path driversDir()
    {
        return driversDir;
    }

    private File memberDir(final int memberId)
    {
        return settings.workDir().resolve("aeron-cluster-member-" + memberId).toFile();
    }

    private static String endpoint(final int port)
    {
        return LoopbackPorts.HOST + ":" + port;
    }

    @Override
    public void close()
    {
        final List<AutoCloseable> closeables = new ArrayList<>();
        closeables.add(client);
        closeables.add(clientDriver);
        closeables.addAll(started);
        CloseHelper.closeAll(closeables);
        started.clear();
        for (int m = 0; m < members; m++)
        {
            IoUtil.delete(memberDir(m), true);
        }
        if (driversDir != null)
        {
            IoUtil.delete(driversDir.toFile(), true);
        }
    }
}
