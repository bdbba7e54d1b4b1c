package io.mmx.runtime.node;

import io.aeron.CncFileDescriptor;
import io.mmx.planner.plan.Plan;
import io.mmx.runtime.core.MemoryOpKind;
import io.mmx.runtime.example.kv.KeyValueClient;
import io.mmx.runtime.example.kv.KeyValueStore;
import org.agrona.DirectBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node's main counters reach its media driver's counters file, where {@code AeronStat} reads
 * them: this test maps the file the way AeronStat does (the CnC file of the node's Aeron
 * directory), finds one counter per hosted process and kind by type id and label, and finds the
 * values {@code /metrics} shows. The fabric-op latency histograms count the core's memory operations.
 */
class NodeCountersTest
{
    @TempDir
    Path dir;

    @Test
    void theMainCountersAreAeronCountersWithTheValuesMetricsShows() throws Exception
    {
        final Plan plan = NodeTestSupport.plan(3, 2, 7);
        final String aeronDir = dir.resolve("aeron").toString();
        final int commands = 50;
        try (MmxNode node = MmxNode.launch(new NodeContext().plan(plan).hosted(0, 1, 2)
            .directory("0-2@127.0.0.1:" + NodeTestSupport.freePorts(1).get(0)).clusterKey(NodeTestSupport.KEY)
            .shmDirectory(dir.resolve("regions")).aeronDirectory(aeronDir), id -> new KeyValueStore(),
            NodeListener.NO_OP))
        {
            NodeTestSupport.awaitLeader(node);
            final KeyValueClient kv = new KeyValueClient(node);
            final CompletableFuture<?>[] puts = new CompletableFuture<?>[commands];
            for (int i = 0; i < commands; i++)
            {
                puts[i] = kv.put("k" + i, i);
            }
            CompletableFuture.allOf(puts).get(60, TimeUnit.SECONDS);

            final MappedByteBuffer cnc = IoUtil.mapExistingFile(new File(aeronDir, CncFileDescriptor.CNC_FILE), "cnc");
            try
            {
                final DirectBuffer meta = CncFileDescriptor.createMetaDataBuffer(cnc);
                final CountersReader file = new CountersReader(CncFileDescriptor.createCountersMetaDataBuffer(cnc, meta),
                    CncFileDescriptor.createCountersValuesBuffer(cnc, meta));
                // Every process has applied the 50 puts and published it; the file then holds what /metrics shows.
                NodeTestSupport.await(() -> fileMatchesMetrics(file, node) &&
                    byLabel(file).get(ProcessCounters.Kind.COMMIT_INDEX.label(2)) >= 0, 60_000,
                    "the counters file to show the values /metrics shows");
                final Map<String, Long> values = byLabel(file);
                long proposals = 0;
                for (int p = 0; p < 3; p++)
                {
                    for (final ProcessCounters.Kind k : ProcessCounters.Kind.values())
                    {
                        assertTrue(values.containsKey(k.label(p)), "no counter '" + k.label(p) + "' in " + values);
                    }
                    proposals += values.get(ProcessCounters.Kind.PROPOSALS.label(p));
                }
                assertTrue(proposals >= commands, "the leader queued every put: " + values);
                System.out.println("NodeCountersTest: " + values);
            }
            finally
            {
                IoUtil.unmap(cnc);
            }
            final String metrics = node.metricsText();
            final Matcher writes = Pattern.compile("\nmmx_fabric_op_latency_seconds_count\\{op=\"write_bulk\"} (\\d+)\n")
                .matcher(metrics);
            assertTrue(writes.find(), metrics);
            assertTrue(Long.parseLong(writes.group(1)) > 0, "the acceptors' bulk writes are timed: " + metrics);
            assertTrue(node.metrics().fabricOps(MemoryOpKind.WRITE_BULK) >= Long.parseLong(writes.group(1)),
                "one histogram, read twice");
        }
    }

    /** Each of the node's counters in the file equals the value /metrics shows for it. */
    private static boolean fileMatchesMetrics(final CountersReader file, final MmxNode node)
    {
        final Map<String, Long> values = byLabel(file);
        final String metrics = node.metricsText();
        for (int p = 0; p < 3; p++)
        {
            final ProcessCounters counters = node.replica(p).events().counters();
            for (final ProcessCounters.Kind k : ProcessCounters.Kind.values())
            {
                final Long inFile = values.get(k.label(p));
                if (inFile == null || inFile != counters.get(k))
                {
                    return false;
                }
            }
            if (!metrics.contains("\nmmx_proposals_total{process=\"" + p + "\"} " +
                values.get(ProcessCounters.Kind.PROPOSALS.label(p)) + "\n"))
            {
                return false;
            }
        }
        return true;
    }

    /** The mmx counters in the file, by label (AeronStat prints the same labels). */
    private static Map<String, Long> byLabel(final CountersReader file)
    {
        final Map<String, Long> values = new HashMap<>();
        file.forEach((id, typeId, key, label) ->
        {
            if (typeId >= 5101 && typeId <= 5100 + ProcessCounters.Kind.values().length && label.startsWith("mmx-"))
            {
                values.put(label, file.getCounterValue(id));
            }
        });
        return values;
    }
}
