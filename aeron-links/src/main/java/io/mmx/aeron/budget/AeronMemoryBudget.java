package io.mmx.aeron.budget;

import io.aeron.logbuffer.LogBufferDescriptor;

/**
 * The memory-mapped log buffers one endpoint (one media driver, one JVM) holds in the all-to-all
 * layout of {@link io.mmx.aeron.transport.AeronTransport}: one exclusive UDP publication per remote
 * endpoint, one image per remote sending endpoint, one IPC log, plus the driver's fixed files.
 * <p>
 * Every Aeron log is three terms plus one metadata page, whether publication or image, and is fully
 * allocated (the transport turns sparse files off), so the file sizes are the memory.
 *
 * @param endpoints                 distinct endpoints in the cluster.
 * @param processesPerEndpoint      processes hosted by one endpoint.
 * @param termLengthBytes           UDP term length.
 * @param ipcTermLengthBytes        IPC term length.
 * @param mdc                       true if a multi-destination broadcast publication is added.
 * @param driverFixedBytes          cnc.dat, loss report and other fixed driver files, measured.
 */
public record AeronMemoryBudget(
    int endpoints,
    int processesPerEndpoint,
    int termLengthBytes,
    int ipcTermLengthBytes,
    boolean mdc,
    long driverFixedBytes)
{
    /** Page size the driver aligns log files to (Aeron's default file page size). */
    public static final int FILE_PAGE_SIZE = 4096;

    /**
     * @param termLengthBytes term length.
     * @return bytes of one log file: three terms plus metadata.
     */
    public static long logLengthBytes(final int termLengthBytes)
    {
        return LogBufferDescriptor.computeLogLength(termLengthBytes, FILE_PAGE_SIZE);
    }

    /** @return UDP publication logs at one endpoint. */
    public int publicationLogs()
    {
        return endpoints - 1 + (mdc && endpoints > 1 ? 1 : 0);
    }

    /** @return images (receive logs) at one endpoint: one per remote sending endpoint. */
    public int imageLogs()
    {
        return endpoints - 1;
    }

    /** @return bytes of all log buffers and driver files at one endpoint. */
    public long bytesPerEndpoint()
    {
        return (long)(publicationLogs() + imageLogs()) * logLengthBytes(termLengthBytes) +
            logLengthBytes(ipcTermLengthBytes) + driverFixedBytes;
    }

    /** @return {@link #bytesPerEndpoint()} shared by the processes of the endpoint. */
    public long bytesPerProcess()
    {
        return bytesPerEndpoint() / processesPerEndpoint;
    }

    /**
     * @param processes            cluster size n.
     * @param processesPerEndpoint processes per JVM.
     * @param termLengthBytes      UDP and IPC term length.
     * @param driverFixedBytes     fixed driver files.
     * @return the budget of that layout.
     */
    public static AeronMemoryBudget of(
        final int processes, final int processesPerEndpoint, final int termLengthBytes, final long driverFixedBytes)
    {
        if (processes < 1 || processesPerEndpoint < 1 || processes % processesPerEndpoint != 0)
        {
            throw new IllegalArgumentException("processes (" + processes + ") must be a positive multiple of " +
                "processesPerEndpoint (" + processesPerEndpoint + ")");
        }
        return new AeronMemoryBudget(
            processes / processesPerEndpoint, processesPerEndpoint, termLengthBytes, termLengthBytes, false,
            driverFixedBytes);
    }

    /** @return one line with the numbers, in MiB. */
    public String describe()
    {
        return String.format(
            "endpoints=%d processes/endpoint=%d term=%d KiB log=%d KiB pubs=%d images=%d -> " +
            "%.1f MiB/endpoint, %.1f MiB/process",
            endpoints, processesPerEndpoint, termLengthBytes / 1024, logLengthBytes(termLengthBytes) / 1024,
            publicationLogs(), imageLogs(), bytesPerEndpoint() / 1048576.0, bytesPerProcess() / 1048576.0);
    }
}
