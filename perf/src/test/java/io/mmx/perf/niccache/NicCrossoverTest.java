package io.mmx.perf.niccache;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * At n = 4096 and 16 processes per host on the ConnectX-6 model, every swept plan degree beats
 * the full mesh on the NIC, and the full mesh saturates the NIC while the planned degrees do not.
 */
class NicCrossoverTest
{
    private static final int N = 4096;
    private static final int PROCS_PER_HOST = 16;

    @Test
    void expanderDegreesBeatTheFullMeshAt16ProcessesPerHost()
    {
        final DegreeSweep sweep = new DegreeSweep(N, 1, ProtocolRates.DEFAULT, NicPreset.CONNECTX6.model(), 1,
            200_000);
        final List<SweepRow> rows = sweep.run(NicCacheReport.DEGREES, new int[]{PROCS_PER_HOST});
        final SweepRow mesh = ReportWriter.fullMesh(rows, PROCS_PER_HOST);
        assertTrue(mesh.missRate() > 0.9, "full mesh miss rate " + mesh.missRate());
        assertTrue(mesh.utilisation() > 1, "full mesh should saturate the NIC: " + mesh);
        for (final SweepRow row : rows)
        {
            if (row.fullMesh())
            {
                continue;
            }
            assertTrue(row.beats(mesh), "degree " + row.degree() + " should beat the full mesh: " + row);
            assertTrue(row.utilisation() < 0.1, "degree " + row.degree() + " should leave the NIC idle: " + row);
            if (row.degree() <= 32)
            {
                assertTrue(row.missRate() < 0.01, "degree " + row.degree() + " fits the cache: " + row);
            }
        }
    }

    @Test
    void theNicSaturatesBetweenDegree256And1024At16ProcessesPerHost()
    {
        final DegreeSweep sweep = new DegreeSweep(N, 1, ProtocolRates.DEFAULT, NicPreset.CONNECTX6.model(), 1,
            200_000);
        final List<SweepRow> rows = sweep.doubling(PROCS_PER_HOST, 256, 1024);
        assertTrue(rows.get(0).utilisation() < 1, "degree 256: " + rows.get(0));
        assertTrue(rows.get(rows.size() - 1).utilisation() > 1, "degree 1024: " + rows.get(rows.size() - 1));
    }
}
