package io.mmx.perf.niccache;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The streams of one NIC as (QP id, op, rate) triples, turned into an endless reference stream
 * by independent draws in proportion to rate. Independent draws model the interleaving of many
 * processes' timers on one NIC; they lose any strict periodicity (see docs/nic-cache-model.md).
 */
final class WeightedStreams
{
    private int[] qpIds = new int[16];
    private byte[] ops = new byte[16];
    private double[] ratesPerSec = new double[16];
    private int size;
    private double totalPerSec;

    /** Adds {@code ratePerSec} references of {@code op} to QP {@code qpId}; zero rates are dropped. */
    void add(final int qpId, final OpType op, final double ratePerSec)
    {
        if (ratePerSec <= 0)
        {
            return;
        }
        if (size == qpIds.length)
        {
            qpIds = Arrays.copyOf(qpIds, size * 2);
            ops = Arrays.copyOf(ops, size * 2);
            ratesPerSec = Arrays.copyOf(ratesPerSec, size * 2);
        }
        qpIds[size] = qpId;
        ops[size] = (byte)op.ordinal();
        ratesPerSec[size] = ratePerSec;
        size++;
        totalPerSec += ratePerSec;
    }

    double totalPerSec()
    {
        return totalPerSec;
    }

    ReferenceStream open(final long seed)
    {
        if (size == 0)
        {
            return () -> ReferenceStream.END;
        }
        final AliasSampler sampler = new AliasSampler(Arrays.copyOf(ratesPerSec, size));
        final long[] packed = new long[size];
        for (int i = 0; i < size; i++)
        {
            packed[i] = ReferenceStream.pack(qpIds[i], OpType.ofOrdinal(ops[i]));
        }
        final SplittableRandom random = new SplittableRandom(seed);
        return () -> packed[sampler.sample(random)];
    }
}
