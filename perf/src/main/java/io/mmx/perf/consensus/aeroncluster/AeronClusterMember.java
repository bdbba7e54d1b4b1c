package io.mmx.perf.consensus.aeroncluster;

import io.aeron.archive.Archive;
import io.aeron.archive.ArchiveThreadingMode;
import io.aeron.archive.client.AeronArchive;
import io.aeron.cluster.ClusteredMediaDriver;
import io.aeron.cluster.ConsensusModule;
import io.aeron.cluster.service.ClusteredServiceContainer;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.mmx.aeron.transport.TransportContext;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.IdleStrategy;

import java.io.File;
import java.util.function.Supplier;

/**
 * One Aeron Cluster member in this JVM, laid out as in Aeron's own cluster tests: its own media driver
 * (shared threading mode, own directory), its own archive (shared threading mode), the consensus module,
 * and one {@link AckService} container. Members reach each other only through UDP on loopback.
 * <p>
 * Durability is Aeron's default: the archive records the log to files without fsync (file sync level 0),
 * so a commit means "held by a majority of processes", as it does for the in-memory mmx node.
 */
final class AeronClusterMember implements AutoCloseable
{
    /** Log term: small, since commands are at most 56 bytes, but far above 256 in flight. */
    static final int LOG_TERM_LENGTH_BYTES = 4 * 1024 * 1024;
    /** Ingress, egress and local IPC terms. */
    static final int TERM_LENGTH_BYTES = 1024 * 1024;
    private static final int ARCHIVE_SEGMENT_LENGTH_BYTES = 16 * 1024 * 1024;
    private static final String LOCAL_CONTROL_CHANNEL = "aeron:ipc?term-length=64k";
    private static final String EPHEMERAL_UDP = "aeron:udp?endpoint=" + LoopbackPorts.HOST + ":0";

    private final ClusteredMediaDriver node;
    private final ClusteredServiceContainer container;
    private final AckService service;

    private AeronClusterMember(
        final ClusteredMediaDriver node, final ClusteredServiceContainer container, final AckService service)
    {
        this.node = node;
        this.container = container;
        this.service = service;
    }

    /** @return commands this member has applied: equal on every member once the log is quiet. */
    long applied()
    {
        return service.applied();
    }

    /**
     * @param memberId       0-based id in {@code clusterMembers}.
     * @param clusterMembers Aeron's static member list (id,ingress,consensus,log,catchup,archive|...).
     * @param archivePort    the archive control port given for this member in {@code clusterMembers}.
     * @param memberDir      archive and cluster files of this member.
     * @param aeronDir       this member's media driver directory.
     * @param idleStrategy   name of the idle strategy of every agent of the member.
     * @param errorHandler   receives every error of the member.
     * @return the running member.
     */
    static AeronClusterMember launch(
        final int memberId,
        final String clusterMembers,
        final int archivePort,
        final File memberDir,
        final String aeronDir,
        final String idleStrategy,
        final ErrorHandler errorHandler)
    {
        final Supplier<IdleStrategy> idle = () -> TransportContext.idleStrategy(idleStrategy);
        final MediaDriver.Context driver = driverContext(aeronDir, idleStrategy, errorHandler);

        final Archive.Context archive = new Archive.Context()
            .aeronDirectoryName(aeronDir)
            .archiveId(memberId)
            .archiveDir(new File(memberDir, "archive"))
            .controlChannel("aeron:udp?endpoint=" + LoopbackPorts.HOST + ":" + archivePort)
            .localControlChannel(LOCAL_CONTROL_CHANNEL)
            .replicationChannel(EPHEMERAL_UDP)
            .archiveClientContext(new AeronArchive.Context().controlResponseChannel(EPHEMERAL_UDP))
            .recordingEventsEnabled(false)
            .threadingMode(ArchiveThreadingMode.SHARED)
            .idleStrategySupplier(idle)
            .segmentFileLength(ARCHIVE_SEGMENT_LENGTH_BYTES)
            .deleteArchiveOnStart(true)
            .errorHandler(errorHandler);

        // The consensus module and the service reach the archive over IPC on the member's own driver.
        final AeronArchive.Context archiveClient = new AeronArchive.Context()
            .aeronDirectoryName(aeronDir)
            .controlRequestChannel(LOCAL_CONTROL_CHANNEL)
            .controlRequestStreamId(archive.localControlStreamId())
            .controlResponseChannel(LOCAL_CONTROL_CHANNEL);

        final File clusterDir = new File(memberDir, "cluster");
        final ConsensusModule.Context consensus = new ConsensusModule.Context()
            .aeronDirectoryName(aeronDir)
            .clusterMemberId(memberId)
            .clusterMembers(clusterMembers)
            .clusterDir(clusterDir)
            .ingressChannel("aeron:udp?term-length=" + TERM_LENGTH_BYTES)
            .logChannel("aeron:udp?term-length=" + LOG_TERM_LENGTH_BYTES)
            .replicationChannel(EPHEMERAL_UDP)
            .archiveContext(archiveClient.clone())
            .idleStrategySupplier(idle)
            .deleteDirOnStart(true)
            .errorHandler(errorHandler);

        final AckService ackService = new AckService();
        final ClusteredServiceContainer.Context service = new ClusteredServiceContainer.Context()
            .aeronDirectoryName(aeronDir)
            .archiveContext(archiveClient.clone())
            .clusterDir(clusterDir)
            .clusteredService(ackService)
            .idleStrategySupplier(idle)
            .errorHandler(errorHandler);

        ClusteredMediaDriver node = null;
        try
        {
            node = ClusteredMediaDriver.launch(driver, archive, consensus);
            return new AeronClusterMember(node, ClusteredServiceContainer.launch(service), ackService);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietClose(node);
            throw ex;
        }
    }

    /**
     * @param aeronDir     the driver's directory, deleted on start and on shutdown.
     * @param idleStrategy name of the driver's idle strategy.
     * @param errorHandler receives the driver's errors.
     * @return a shared-threading driver context with the benchmark's term lengths; also the client's driver.
     */
    static MediaDriver.Context driverContext(
        final String aeronDir, final String idleStrategy, final ErrorHandler errorHandler)
    {
        return new MediaDriver.Context()
            .aeronDirectoryName(aeronDir)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(TransportContext.idleStrategy(idleStrategy))
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .termBufferSparseFile(true)
            .publicationTermBufferLength(TERM_LENGTH_BYTES)
            .ipcTermBufferLength(TERM_LENGTH_BYTES)
            .errorHandler(errorHandler);
    }

    @Override
    public void close()
    {
        // Service first: it is a client of the member's driver.
        CloseHelper.closeAll(container, node);
    }
}
