package io.mmx.perf.niccache;

/**
 * One cell of the degree sweep: the m&amp;m pattern at one degree and one number of processes
 * per host, averaged over the simulated NICs.
 *
 * @param procsPerHost      processes sharing a NIC.
 * @param degree            plan degree, or n − 1 for the full mesh.
 * @param fullMesh          whether this is the full mesh.
 * @param qpsPerNic         QPs per simulated NIC (mean).
 * @param offeredOpsPerSec  one-sided ops per second offered to a NIC (mean).
 * @param missRate          QP-context miss rate (mean).
 * @param readMissRate      miss rate of READs alone (mean).
 * @param capacityOpsPerSec ops per second a NIC sustains for this mix (mean).
 * @param predictedOpsPerSec offered ops capped by capacity (mean).
 */
public record SweepRow(
    int procsPerHost,
    int degree,
    boolean fullMesh,
    double qpsPerNic,
    double offeredOpsPerSec,
    double missRate,
    double readMissRate,
    double capacityOpsPerSec,
    double predictedOpsPerSec)
{
    /** Offered over capacity. */
    public double utilisation()
    {
        return offeredOpsPerSec / capacityOpsPerSec;
    }

    /** "full" for the full mesh, else the degree. */
    public String degreeLabel()
    {
        return fullMesh ? "full (" + degree + ")" : Integer.toString(degree);
    }

    /**
     * Whether this plan beats {@code mesh} on the NIC: a lower miss rate and at least 10 % more
     * capacity for its own mix (the margin keeps sampling noise from deciding).
     */
    public boolean beats(final SweepRow mesh)
    {
        return missRate < mesh.missRate && capacityOpsPerSec >= 1.10 * mesh.capacityOpsPerSec;
    }
}
