package io.mmx.planner.plan;

import java.util.Locale;

/**
 * The heap {@code topo plan} needs for n processes of degree d, checked before any large array
 * is allocated, so that a plan too big for the JVM is refused with the heap it needs instead of
 * failing minutes later with an {@link OutOfMemoryError}.
 *
 * <p>The model is linear: the graph in CSR form, the generator's stubs, the Lanczos vectors, the
 * attack search's per-worker arrays and the analysis's witnesses take about {@link
 * #BYTES_PER_PROCESS} + {@link #BYTES_PER_ENDPOINT}·d bytes per process, plus {@link #FIXED_BYTES}
 * (the JVM, the Lanczos basis budget). Measured: n = 400,000 at d = 8 runs in a 96 MiB heap and
 * fails in 64 MiB; n = 200,000 at d = 32 runs in 160 MiB and fails in 96 MiB. The constants are
 * about 1.5 times what those runs needed, so a refused plan would not have fitted.
 */
public final class HeapEstimate
{
    /** Heap per process independent of the degree. */
    static final long BYTES_PER_PROCESS = 96;
    /** Heap per process and neighbour. */
    static final long BYTES_PER_ENDPOINT = 24;
    /** Heap independent of n. */
    static final long FIXED_BYTES = 64L << 20;

    private HeapEstimate()
    {
    }

    /** Estimated heap in bytes for a plan of {@code n} processes of degree {@code degree}. */
    public static long planBytes(final int n, final int degree)
    {
        return FIXED_BYTES + (long)n * (BYTES_PER_PROCESS + BYTES_PER_ENDPOINT * degree);
    }

    /**
     * Refuses a plan that would not fit in {@code maxHeapBytes}.
     *
     * @throws IllegalArgumentException naming the heap the plan needs, this JVM's limit and the fix.
     */
    public static void requireFits(final int n, final int degree, final long maxHeapBytes)
    {
        final long needed = planBytes(n, degree);
        if (needed > maxHeapBytes)
        {
            final long gib = (needed + (1L << 30) - 1) >> 30;
            throw new IllegalArgumentException(String.format(Locale.ROOT,
                "a plan of n = %d processes at degree %d needs about %s of heap, but this JVM may use %s: " +
                "give it more (MMX_JAVA_OPTS='-Xmx%dg -XX:+UseParallelGC' bin/topo ...) or plan fewer processes",
                n, degree, size(needed, true), size(maxHeapBytes, false), gib));
        }
    }

    /** {@code bytes} in MiB below a GiB (rounded up if {@code up}, else down), else in GiB to a tenth. */
    static String size(final long bytes, final boolean up)
    {
        if (bytes < 1L << 30)
        {
            final long mib = up ? (bytes + (1L << 20) - 1) >> 20 : bytes >> 20;
            return mib + " MiB";
        }
        return String.format(Locale.ROOT, "%.1f GiB", bytes / (double)(1L << 30));
    }
}
