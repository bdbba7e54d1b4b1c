package io.mmx.perf.niccache;

import java.util.Arrays;
import java.util.Locale;

/**
 * NIC models calibrated to published QP-scaling figures. Only the figures named here are
 * calibrated; every other number is an assumption, said so below and in docs/nic-cache-model.md.
 *
 * <p>Why a QP-context cache at all: Chen, Lu and Shu, "Scalable RDMA RPC on Reliable Connection
 * with Efficient Resource Sharing" (ScaleRPC), EuroSys 2019, doi:10.1145/3302424.3303968, trace
 * RC's loss of throughput with many targets to contention in the NIC cache; Novakovic et al.,
 * "Storm: a fast transactional dataplane for remote data structures", SYSTOR 2019,
 * arXiv:1902.02411, revisit it across NIC generations and find newer NICs keep far more
 * connections performant. Earlier: Dragojević et al., "FaRM: Fast Remote Memory", NSDI 2014, and
 * Kalia, Kaminsky and Andersen, "Design Guidelines for High Performance RDMA Systems", USENIX
 * ATC 2016, and "FaSST", OSDI 2016.
 */
public enum NicPreset
{
    /**
     * ConnectX-6. Calibrated to: one-sided READ throughput about 4× lower with 4096 QPs than with
     * 32, WRITE throughput about 15 % lower over the same range (the figures quoted in mmx issue 7
     * for ConnectX-6; the READ/WRITE asymmetry is the responder needing the context to answer).
     * Assumed, not calibrated: 1024 entries, 8 ways, 100 M ops/s peak. The penalty (40 ns = 4 ×
     * the base cost) and the WRITE weight (0.059) follow from the two figures given those.
     */
    CONNECTX6(new NicModel("connectx6", 1024, 8, 100e6, 40.0, 1.0, 0.059, 1.0), 4.0, 0.15, 0),

    /**
     * ConnectX-3. Calibrated to: the knee near 400 QPs past which RC throughput falls (commonly
     * cited from FaRM, NSDI 2014, and Kalia et al., ATC 2016 / OSDI 2016 for ConnectX-3), taken
     * as the QP count where READ throughput is 10 % below its few-QP plateau. Assumed, not
     * calibrated: 384 entries, 8 ways, 35 M ops/s peak, a miss penalty of 3 × the base cost
     * (86 ns) and the ConnectX-6 WRITE weight.
     */
    CONNECTX3(new NicModel("connectx3", 384, 8, 35e6, 86.0, 1.0, 0.059, 1.0), Double.NaN, Double.NaN, 400);

    /** The few-QP end of the ConnectX-6 figures. */
    public static final int FEW_QPS = 32;
    /** The many-QP end of the ConnectX-6 figures. */
    public static final int MANY_QPS = 4096;

    private final NicModel model;
    private final double readRatio;
    private final double writeDrop;
    private final int kneeQps;

    NicPreset(final NicModel model, final double readRatio, final double writeDrop, final int kneeQps)
    {
        this.model = model;
        this.readRatio = readRatio;
        this.writeDrop = writeDrop;
        this.kneeQps = kneeQps;
    }

    /** The NIC model. */
    public NicModel model()
    {
        return model;
    }

    /** Published READ throughput at {@link #FEW_QPS} over that at {@link #MANY_QPS}, or NaN if not calibrated. */
    public double publishedReadRatio()
    {
        return readRatio;
    }

    /** Published fractional WRITE throughput drop from {@link #FEW_QPS} to {@link #MANY_QPS}, or NaN. */
    public double publishedWriteDrop()
    {
        return writeDrop;
    }

    /** Published knee in QPs, or 0 if not calibrated. */
    public int publishedKneeQps()
    {
        return kneeQps;
    }

    /** The command-line name ({@code connectx6}, {@code connectx3}). */
    public String cliName()
    {
        return model.name();
    }

    /**
     * The preset called {@code name}.
     *
     * @throws IllegalArgumentException listing the known names if there is none.
     */
    public static NicPreset byName(final String name)
    {
        for (final NicPreset preset : values())
        {
            if (preset.cliName().equals(name.toLowerCase(Locale.ROOT)))
            {
                return preset;
            }
        }
        throw new IllegalArgumentException("unknown NIC preset '" + name + "'; use one of " +
            Arrays.stream(values()).map(NicPreset::cliName).toList());
    }
}
