package io.mmx.perf.verbs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * NIC counters a hardware run records before and after each cell, from the two places Linux
 * exposes them:
 * <ul>
 *   <li>{@code /sys/class/infiniband/DEV/ports/PORT/counters/*} (IB port counters) and
 *   {@code .../hw_counters/*} (driver counters; on mlx5 among others {@code rx_read_requests},
 *   {@code rx_write_requests}, {@code rx_atomic_requests}: the one-sided operations the NIC
 *   served as responder), keyed {@code DEV/PORT/NAME};</li>
 *   <li>{@code ethtool -S IFACE} of the NIC's netdev, keyed {@code ethtool/NAME}; mlx5 reports
 *   its PCIe counters there ({@code outbound_pci_stalled_rd}, {@code outbound_pci_stalled_wr},
 *   their {@code _events}, {@code outbound_pci_buffer_overflow}, {@code rx_pci_signal_integrity},
 *   {@code tx_pci_signal_integrity}, and on recent kernels {@code pci_bw_inbound_high} and
 *   friends) where the firmware supports them.</li>
 * </ul>
 * No interface in either place counts PCIe read requests as such: the stall counters are the
 * closest proxy for the extra reads that QP-context cache misses cause, and the report says so.
 */
public final class NicCounters
{
    /** Counter names shown as columns when present (responder operations, then PCIe pressure). */
    public static final List<String> REPORTED = List.of(
        "rx_read_requests", "rx_write_requests", "rx_atomic_requests",
        "outbound_pci_stalled_rd", "outbound_pci_stalled_rd_events", "outbound_pci_stalled_wr_events",
        "outbound_pci_buffer_overflow", "pci_bw_inbound_high", "pci_bw_outbound_high");

    private NicCounters()
    {
    }

    /** A source of counter snapshots. */
    @FunctionalInterface
    public interface Source
    {
        /** The current value of every counter, by key. */
        Map<String, Long> snapshot() throws IOException;
    }

    /** Reads every numeric counter under {@code root} (normally {@code /sys/class/infiniband}). */
    public static Map<String, Long> readSysfs(final Path root) throws IOException
    {
        final Map<String, Long> values = new TreeMap<>();
        if (!Files.isDirectory(root))
        {
            return values;
        }
        try (Stream<Path> devices = Files.list(root))
        {
            for (final Path device : (Iterable<Path>)devices::iterator)
            {
                final Path ports = device.resolve("ports");
                if (!Files.isDirectory(ports))
                {
                    continue;
                }
                try (Stream<Path> portDirs = Files.list(ports))
                {
                    for (final Path port : (Iterable<Path>)portDirs::iterator)
                    {
                        for (final String group : List.of("counters", "hw_counters"))
                        {
                            readGroup(port.resolve(group), device.getFileName() + "/" + port.getFileName() + "/",
                                values);
                        }
                    }
                }
            }
        }
        return values;
    }

    /** Parses the output of {@code ethtool -S IFACE}: lines of {@code name: value}. */
    public static Map<String, Long> parseEthtool(final String output)
    {
        final Map<String, Long> values = new TreeMap<>();
        for (final String line : output.split("\n"))
        {
            final int colon = line.lastIndexOf(':');
            if (colon <= 0)
            {
                continue;
            }
            final Long value = parse(line.substring(colon + 1));
            if (value != null)
            {
                values.put("ethtool/" + line.substring(0, colon).strip(), value);
            }
        }
        return values;
    }

    /** Runs {@code ethtool -S iface}. */
    public static Map<String, Long> readEthtool(final String iface) throws IOException
    {
        final Process p = new ProcessBuilder("ethtool", "-S", iface).redirectErrorStream(true).start();
        final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try
        {
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0)
            {
                throw new IOException("`ethtool -S " + iface + "` failed: " + output.strip() + "; pass the netdev " +
                    "of the RDMA NIC (see `rdma link`) or leave out --ethtool");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running ethtool", ex);
        }
        return parseEthtool(output);
    }

    /** after − before for every key in both (counters that appeared or vanished are left out). */
    public static Map<String, Long> delta(final Map<String, Long> before, final Map<String, Long> after)
    {
        final Map<String, Long> d = new TreeMap<>();
        for (final Map.Entry<String, Long> e : after.entrySet())
        {
            final Long b = before.get(e.getKey());
            if (b != null)
            {
                d.put(e.getKey(), e.getValue() - b);
            }
        }
        return d;
    }

    /** Sum over devices, ports and sources of every counter whose name (last key part) is {@code name}. */
    public static long total(final Map<String, Long> values, final String name)
    {
        long sum = 0;
        for (final Map.Entry<String, Long> e : values.entrySet())
        {
            if (e.getKey().endsWith("/" + name))
            {
                sum += e.getValue();
            }
        }
        return sum;
    }

    /** Whether any key carries counter {@code name}. */
    public static boolean has(final Map<String, Long> values, final String name)
    {
        return values.keySet().stream().anyMatch((k) -> k.endsWith("/" + name));
    }

    private static void readGroup(final Path dir, final String prefix, final Map<String, Long> into)
        throws IOException
    {
        if (!Files.isDirectory(dir))
        {
            return;
        }
        try (Stream<Path> files = Files.list(dir))
        {
            for (final Path file : (Iterable<Path>)files::iterator)
            {
                if (Files.isRegularFile(file) && Files.isReadable(file))
                {
                    final Long value = parse(Files.readString(file, StandardCharsets.US_ASCII));
                    if (value != null)
                    {
                        into.put(prefix + file.getFileName(), value);
                    }
                }
            }
        }
    }

    private static Long parse(final String text)
    {
        try
        {
            return Long.parseLong(text.strip());
        }
        catch (final NumberFormatException ex)
        {
            return null;
        }
    }
}
