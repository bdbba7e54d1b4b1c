package io.mmx.perf.niccache;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs a preset on the micro-benchmark its published figures came from
 * ({@link UniformAccessPattern}) and compares the model with the figures.
 */
public final class Calibration
{
    /** Fraction of the few-QP plateau lost at the knee. */
    public static final double KNEE_DROP = 0.10;

    private static final long SEED = 7;
    private static final long REFERENCES = 400_000;

    private Calibration()
    {
    }

    /**
     * One published figure beside the model's value.
     *
     * @param what      what is compared.
     * @param published the published figure.
     * @param modelled  the model's value.
     */
    public record Point(String what, double published, double modelled)
    {
        /** |modelled − published| / published. */
        public double relativeError()
        {
            return Math.abs(modelled - published) / Math.abs(published);
        }
    }

    /** Ops per second the model sustains with {@code qps} uniformly used QPs, all {@code op}. */
    public static double capacityOpsPerSec(final NicModel model, final int qps, final OpType op)
    {
        return NicPrediction.predict(new UniformAccessPattern(qps, op, 1), 0, model, SEED, REFERENCES)
            .capacityOpsPerSec();
    }

    /**
     * Smallest QP count whose READ capacity is at least {@link #KNEE_DROP} below the capacity at
     * {@link NicPreset#FEW_QPS}, by bisection (the capacity falls monotonically with QPs).
     */
    public static int kneeQps(final NicModel model)
    {
        final double threshold = (1 - KNEE_DROP) * capacityOpsPerSec(model, NicPreset.FEW_QPS, OpType.READ);
        int below = NicPreset.FEW_QPS;
        int above = 1 << 16;
        while (above - below > 1)
        {
            final int mid = (below + above) >>> 1;
            if (capacityOpsPerSec(model, mid, OpType.READ) <= threshold)
            {
                above = mid;
            }
            else
            {
                below = mid;
            }
        }
        return above;
    }

    /** The preset's published figures beside the model's values. */
    public static List<Point> points(final NicPreset preset)
    {
        final NicModel model = preset.model();
        final List<Point> points = new ArrayList<>();
        if (!Double.isNaN(preset.publishedReadRatio()))
        {
            points.add(new Point("READ throughput " + NicPreset.FEW_QPS + " QPs / " + NicPreset.MANY_QPS + " QPs",
                preset.publishedReadRatio(),
                capacityOpsPerSec(model, NicPreset.FEW_QPS, OpType.READ) /
                capacityOpsPerSec(model, NicPreset.MANY_QPS, OpType.READ)));
        }
        if (!Double.isNaN(preset.publishedWriteDrop()))
        {
            points.add(new Point("WRITE throughput drop " + NicPreset.FEW_QPS + " -> " + NicPreset.MANY_QPS + " QPs",
                preset.publishedWriteDrop(),
                1 - capacityOpsPerSec(model, NicPreset.MANY_QPS, OpType.WRITE) /
                capacityOpsPerSec(model, NicPreset.FEW_QPS, OpType.WRITE)));
        }
        if (preset.publishedKneeQps() > 0)
        {
            points.add(new Point("knee (QPs at " + Math.round(KNEE_DROP * 100) + " % READ loss)",
                preset.publishedKneeQps(), kneeQps(model)));
        }
        return points;
    }
}
