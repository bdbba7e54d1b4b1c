package io.mmx.rdma.memd;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.region.ClusterKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * memd answers every request a client pipelines, with no further traffic from that client. A
 * client whose request timed out stops sending to that region (the fabric's fence) until the
 * answer comes, so a request the daemon holds unanswered waiting for more input wedges the
 * client for good.
 */
class MemdPipelineTest
{
    private static final Graph PLAN = Graph.fromEdges(2, new int[]{0}, new int[]{1});
    private static final ClusterKey KEY = ClusterKey.ofPassphrase("pipeline-test-cluster-key-0123456789");
    private static final int BULK = MemdProtocol.MAX_PAYLOAD;
    private static final int REQUESTS = 12;

    private MemoryDaemon daemon;

    @BeforeEach
    void setUp()
    {
        daemon = MemoryDaemon.start(new MemoryDaemon.Context()
            .listen(new InetSocketAddress("127.0.0.1", 0)).clusterKey(KEY).plan(PLAN));
        assertEquals(OpStatus.OK, MemdRegionLink.createRegion(daemon.boundAddress(), KEY, 0, 4L * BULK,
            PlanDigest.ofGraph(PLAN), TimeUnit.SECONDS.toNanos(5)));
    }

    @AfterEach
    void tearDown()
    {
        daemon.close();
    }

    @Test
    void aBurstOfLargeReadsIsAnsweredInFullWithoutMoreTraffic() throws Exception
    {
        try (RawMemdClient client = new RawMemdClient(daemon.boundAddress()))
        {
            // Each answer is a full response frame; more of them than the daemon's output buffer holds
            // arrive in one segment, so the daemon must come back to the rest after it flushed.
            final ByteArrayOutputStream burst = new ByteArrayOutputStream();
            for (int i = 1; i <= REQUESTS; i++)
            {
                burst.write(RawMemdClient.frame(KEY, client.nonce(), OpType.READ_BULK.ordinal(), 1, i, 0, BULK,
                    (long)(i % 4) * BULK, 0, 0, new byte[0]));
            }
            client.sendRaw(burst.toByteArray());
            for (int i = 1; i <= REQUESTS; i++)
            {
                // A request left unanswered shows as a read timeout (5 s) here.
                final RawMemdClient.Response response = client.readResponse();
                assertEquals(i, response.requestId());
                assertEquals(OpStatus.OK, response.status(), "request " + i);
            }
        }
    }
}
