package io.mmx.perf.niccache;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each preset reproduces the published figures it is calibrated to within 10 %, on the
 * micro-benchmark pattern those figures came from.
 */
class NicCalibrationTest
{
    @Test
    void connectX6ReadFallsAboutFourfoldFrom32To4096Qps()
    {
        final NicModel model = NicPreset.CONNECTX6.model();
        final double ratio = Calibration.capacityOpsPerSec(model, 32, OpType.READ) /
            Calibration.capacityOpsPerSec(model, 4096, OpType.READ);
        assertEquals(4.0, ratio, 0.4, "READ 32/4096 QPs");
    }

    @Test
    void connectX6WriteFallsAboutFifteenPercentFrom32To4096Qps()
    {
        final NicModel model = NicPreset.CONNECTX6.model();
        final double drop = 1 - Calibration.capacityOpsPerSec(model, 4096, OpType.WRITE) /
            Calibration.capacityOpsPerSec(model, 32, OpType.WRITE);
        assertEquals(0.15, drop, 0.015, "WRITE drop 32 -> 4096 QPs");
    }

    @Test
    void connectX3KneeIsNear400Qps()
    {
        final int knee = Calibration.kneeQps(NicPreset.CONNECTX3.model());
        assertEquals(400, knee, 40, "ConnectX-3 knee");
    }

    @Test
    void everyPublishedPointOfEveryPresetIsWithinTenPercent()
    {
        for (final NicPreset preset : NicPreset.values())
        {
            final var points = Calibration.points(preset);
            assertFalse(points.isEmpty(), preset + " is calibrated to nothing");
            for (final Calibration.Point p : points)
            {
                assertTrue(p.relativeError() <= 0.10, preset + ": " + p);
            }
        }
    }

    @Test
    void fewQpsFitSoThePlateauHasNoMisses()
    {
        final NicPrediction few = NicPrediction.predict(
            new UniformAccessPattern(32, OpType.READ, 1), 0, NicPreset.CONNECTX6.model(), 3, 100_000);
        assertEquals(0.0, few.outcome().missRate());
        assertEquals(NicPreset.CONNECTX6.model().peakOpsPerSec(), few.capacityOpsPerSec(), 1e-3);
    }
}
