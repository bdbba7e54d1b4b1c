package io.mmx.perf.niccache;

/**
 * Which QP contexts each NIC touches, how often and for which op. The analytic m&amp;m pattern
 * ({@link MmAccessPattern}) and the calibration micro-benchmark ({@link UniformAccessPattern})
 * implement it; a trace recorded by the cluster simulator can implement it too by replaying its
 * events per host (then {@link #open} returns a finite stream that ends with
 * {@link ReferenceStream#END}).
 *
 * <p>QP ids are local to a NIC, {@code 0..qpCount(nic)-1}.
 */
public interface AccessPattern
{
    /** A short name for reports. */
    String name();

    /** Number of NICs (hosts) the pattern covers. */
    int nicCount();

    /** QPs established on this NIC (whether or not the pattern ever touches them). */
    int qpCount(int nic);

    /** One-sided operations per second that touch this NIC's QP contexts, as offered by the pattern. */
    double offeredOpsPerSec(int nic);

    /**
     * The references this NIC sees.
     *
     * @param nic  the NIC.
     * @param seed for patterns that sample their order; traces ignore it.
     */
    ReferenceStream open(int nic, long seed);
}
