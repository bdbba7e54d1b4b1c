package io.mmx.perf.verbs;

import io.mmx.perf.niccache.SweepRow;
import io.mmx.planner.generate.Generators;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.rdma.fabric.PlanMemoryFabric;
import io.mmx.rdma.local.LocalRegionStore;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.fabric.ConnectionManager;
import io.mmx.rdma.verbs.VerbsPreflight;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * The hardware-run harness without hardware: it refuses here with the preflight's sentence,
 * its measuring loop runs on the local backend, and its rows land in the model's table layout.
 */
class VerbsSweepTest
{
    @Test
    void refusesOnThisMachineWithThePreflightMessage()
    {
        final VerbsPreflight.Result preflight = VerbsPreflight.check();
        assumeFalse(preflight.ok(), "this machine has RDMA: the harness would run");
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = VerbsSweep.run(new String[]{"--out", "target/verbs-should-not-exist"}, preflight,
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(VerbsSweep.EXIT_UNAVAILABLE, code);
        assertEquals("perf verbs: skipped: " + preflight.message() + "\n", err.toString(StandardCharsets.UTF_8));
        assertFalse(Files.exists(java.nio.file.Path.of("target/verbs-should-not-exist")), "nothing written");
    }

    @Test
    void refusesUnavailableEvenWithAFakeReadyMachineMissingOnlyTheDevice()
    {
        final VerbsPreflight.Result noDevice = new VerbsPreflight.Result(false, "rdma-device", "no RDMA device here");
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(VerbsSweep.EXIT_UNAVAILABLE, VerbsSweep.run(new String[0], noDevice, System.out,
            new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("no RDMA device here"));
    }

    @Test
    void badOptionsAreAUsageError()
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, VerbsSweep.run(new String[]{"--qps"}, VerbsPreflight.check(), System.out,
            new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--qps"));
    }

    @Test
    void theMeasuringLoopRunsOnTheLocalBackendAndCountsQueuePairs() throws Exception
    {
        final int procs = 3;
        final int degree = 4;
        final Graph plan = Generators.byName("random").generate(8, degree, 1);
        final PlanDigest digest = PlanDigest.ofGraph(plan);
        final ClusterKey key = ClusterKey.ofPassphrase("verbs sweep test key");
        final LocalRegionStore store = new LocalRegionStore();
        for (int q = 0; q < plan.n(); q++)
        {
            store.createOrOpen(q, 4096, digest, key);
        }
        final long[] snapshots = {0};
        final VerbsSweepRow row = SweepRunner.measure(plan, procs, degree, (self) -> new PlanMemoryFabric(
            ConnectionManager.open(plan, self, store.linkFactory(digest, key)), SystemNanoClock.INSTANCE),
            20_000_000L, 8, () -> Map.of("mlx5_0/1/rx_atomic_requests", 1000 * ++snapshots[0]));
        assertEquals(procs * (degree + 1), row.qps(), "degree + 1 queue pairs per process");
        assertTrue(row.ops() > 0, "operations completed: " + row);
        assertEquals(0, row.errors());
        assertEquals(1000L, row.counters().get("mlx5_0/1/rx_atomic_requests"));
        assertEquals(2, snapshots[0], "one snapshot before and one after");
    }

    @Test
    void rowsSitBesideTheModelInTheModelsTableLayout() throws Exception
    {
        final Map<String, Long> delta = NicCounters.delta(
            NicCounters.parseEthtool(Files.readString(NicCountersTest.fixture("ethtool-before.txt"))),
            NicCounters.parseEthtool(Files.readString(NicCountersTest.fixture("ethtool-after.txt"))));
        final VerbsSweepRow measured = new VerbsSweepRow(4, 8, 36, 2_000_000, 3, 1_000_000_000L, delta);
        final VerbsSweepRow unmodelled = new VerbsSweepRow(4, 64, 260, 1_000_000, 0, 1_000_000_000L, Map.of());
        final SweepRow model = new SweepRow(4, 8, false, 36, 1e6, 0.0123, 0.02, 40e6, 1e6);
        final String md = VerbsSweepReport.markdown("test NIC", List.of(measured, unmodelled), List.of(model));
        assertTrue(md.contains("| procs/host | degree | QPs | measured Mops/s | errors | model QPs/NIC | " +
            "model predicted Mops/s | model miss rate | outbound_pci_stalled_rd/op | " +
            "outbound_pci_stalled_rd_events/op | outbound_pci_stalled_wr_events/op | " +
            "outbound_pci_buffer_overflow/op |"), md);
        assertTrue(md.contains("| 4 | 8 | 36 | 2.000 | 3 | 36 | 1.000 | 0.0123 | 0.0000 | 0.0002 | 0.0000 | 0.0000 |"),
            md);
        assertTrue(md.contains("| 4 | 64 | 260 | 1.000 | 0 | - | - | - | - | - | - | - |"), md);
        assertTrue(md.contains("No Linux interface counts PCIe read requests directly"), md);
    }
}
