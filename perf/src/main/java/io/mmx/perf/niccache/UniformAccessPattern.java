package io.mmx.perf.niccache;

import java.util.SplittableRandom;

/**
 * The micro-benchmark behind the published QP-scaling curves: one NIC, {@code qps} connections,
 * one op type, each connection equally likely next. It is what {@link Calibration} runs the
 * presets on, so the model is fitted to the experiment that produced the figures.
 */
public final class UniformAccessPattern implements AccessPattern
{
    private final int qps;
    private final OpType op;
    private final double offeredOpsPerSec;

    /**
     * @param qps              connections on the NIC, at least 1.
     * @param op               the op every reference issues.
     * @param offeredOpsPerSec the offered load (the benchmark saturates the NIC, so any large value).
     */
    public UniformAccessPattern(final int qps, final OpType op, final double offeredOpsPerSec)
    {
        if (qps < 1)
        {
            throw new IllegalArgumentException("a uniform pattern needs at least 1 QP, got " + qps);
        }
        this.qps = qps;
        this.op = op;
        this.offeredOpsPerSec = offeredOpsPerSec;
    }

    @Override
    public String name()
    {
        return "uniform-" + op.name().toLowerCase() + "-" + qps;
    }

    @Override
    public int nicCount()
    {
        return 1;
    }

    @Override
    public int qpCount(final int nic)
    {
        return qps;
    }

    @Override
    public double offeredOpsPerSec(final int nic)
    {
        return offeredOpsPerSec;
    }

    @Override
    public ReferenceStream open(final int nic, final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        return () -> ReferenceStream.pack(random.nextInt(qps), op);
    }
}
