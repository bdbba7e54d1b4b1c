package io.mmx.rdma.memd;

import io.mmx.rdma.fabric.CasHammerChild;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.SigkillHarness;
import org.agrona.IoUtil;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Three client JVMs CAS-increment a counter held by memd; one is SIGKILLed mid-stream. The
 * daemon must keep serving, and no increment may be lost or duplicated.
 */
class MemdSigkillTest
{
    @Test
    void daemonSurvivesAClientKilledMidStream() throws Exception
    {
        final Path logs = Files.createTempDirectory("mmx-memd-sigkill-");
        try (MemoryDaemon daemon = MemoryDaemon.start(new MemoryDaemon.Context()
            .listen(new InetSocketAddress("127.0.0.1", 0)).clusterKey(CasHammerChild.KEY).plan(CasHammerChild.PLAN)
            .maxRegionBytes(CasHammerChild.dataBytes(SigkillHarness.MAX_INCREMENTS)));
            SigkillHarness harness = new SigkillHarness(logs))
        {
            final InetSocketAddress address = daemon.boundAddress();
            assertEquals(OpStatus.OK, MemdRegionLink.createRegion(address, CasHammerChild.KEY, 0,
                CasHammerChild.dataBytes(SigkillHarness.MAX_INCREMENTS), CasHammerChild.DIGEST,
                TimeUnit.SECONDS.toNanos(5)));
            System.out.println("memd sigkill: " + harness.run("memd",
                address.getHostString() + ":" + address.getPort(), daemon.region(0)));
        }
        finally
        {
            IoUtil.delete(logs.toFile(), true);
        }
    }
}
