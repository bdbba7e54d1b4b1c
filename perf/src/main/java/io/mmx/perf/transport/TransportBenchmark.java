package io.mmx.perf.transport;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Round-trip latency percentiles and one-way message rate of mmx over Aeron UDP loopback and Aeron IPC,
 * against a plain DatagramChannel in the same run, reported as ratios to that baseline.
 * <p>
 * One thread drives both ends of each pair, the same way for every transport; Aeron adds its embedded
 * driver thread. Usage: {@code TransportBenchmark [roundTrips] [messages] [idleStrategy]}, defaults
 * 10000, 100000, yielding; well under a minute on two cores.
 */
public final class TransportBenchmark
{
    private static final int WINDOW = 64;
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(20);

    private TransportBenchmark()
    {
    }

    /** Result of one pair. */
    private record Result(String name, Histogram rttNs, double messagesPerSecond, long lost)
    {
    }

    /**
     * @param args roundTrips messages idleStrategy.
     * @throws Exception on setup failure.
     */
    public static void main(final String[] args) throws Exception
    {
        final int roundTrips = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        final int messages = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        final String idle = args.length > 2 ? args[2] : "yielding";
        final Path dir = Files.createTempDirectory("mmx-transport-bench");
        final long startNs = System.nanoTime();
        final List<Result> results = new ArrayList<>();
        try
        {
            try (DatagramPair pair = new DatagramPair())
            {
                results.add(measure(pair, roundTrips, messages));
            }
            final int[] ports = freePorts();
            try (AeronPair pair = AeronPair.udp(dir, ports[0], ports[1], idle))
            {
                awaitConnected(pair);
                results.add(measure(pair, roundTrips, messages));
                System.out.println("aeron-udp counters: " + pair.counters());
            }
            try (AeronPair pair = AeronPair.ipc(dir, idle))
            {
                awaitConnected(pair);
                results.add(measure(pair, roundTrips, messages));
                System.out.println("aeron-ipc counters: " + pair.counters());
            }
        }
        finally
        {
            deleteRecursively(dir);
        }
        report(results, roundTrips, messages, idle, (System.nanoTime() - startNs) / 1e9);
    }

    private static void awaitConnected(final AeronPair pair)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT_NS;
        while (!pair.isConnected())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new IllegalStateException(pair.name() + " did not connect within 20 s");
            }
            Thread.yield();
        }
    }

    private static Result measure(final LinkPair pair, final int roundTrips, final int messages)
    {
        pingPong(pair, roundTrips / 4, null); // warm-up
        final Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(1), 3);
        final long lostRtt = pingPong(pair, roundTrips, histogram);
        rate(pair, messages / 4);
        final long rateStartNs = System.nanoTime();
        final long received = rate(pair, messages);
        final double seconds = (System.nanoTime() - rateStartNs) / 1e9;
        return new Result(pair.name(), histogram, received / seconds, lostRtt + (messages - received));
    }

    /** @return round trips that timed out (lost). */
    private static long pingPong(final LinkPair pair, final int count, final Histogram histogram)
    {
        long lost = 0;
        for (int i = 1; i <= count; i++)
        {
            final long sentNs = System.nanoTime();
            while (!pair.send(true, i))
            {
                Thread.onSpinWait();
            }
            if (!await(pair, false, i))
            {
                lost++;
                continue;
            }
            while (!pair.send(false, i))
            {
                Thread.onSpinWait();
            }
            if (!await(pair, true, i))
            {
                lost++;
                continue;
            }
            if (histogram != null)
            {
                histogram.recordValue(Math.min(System.nanoTime() - sentNs, histogram.getHighestTrackableValue()));
            }
        }
        return lost;
    }

    private static boolean await(final LinkPair pair, final boolean atA, final long value)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        while (true)
        {
            final long received = pair.poll(atA);
            if (received == value)
            {
                return true;
            }
            if (received < 0 && System.nanoTime() > deadlineNs)
            {
                return false;
            }
        }
    }

    /** Sends {@code count} messages A to B with at most WINDOW unacknowledged; @return messages received. */
    private static long rate(final LinkPair pair, final int count)
    {
        long sent = 0;
        long received = 0;
        long lastProgressNs = System.nanoTime();
        while (received < count)
        {
            while (sent < count && sent - received < WINDOW && pair.send(true, sent + 1))
            {
                sent++;
            }
            final long value = pair.poll(false);
            if (value > received)
            {
                // Values are sequence numbers and a poll may carry several: the highest one counts.
                received = value;
                lastProgressNs = System.nanoTime();
            }
            else if (value < 0 && System.nanoTime() - lastProgressNs > TimeUnit.MILLISECONDS.toNanos(200))
            {
                // Lost in flight: count them as lost and open the window again.
                if (sent >= count)
                {
                    break;
                }
                received = sent;
                lastProgressNs = System.nanoTime();
            }
        }
        return Math.min(received, count);
    }

    private static void report(
        final List<Result> results, final int roundTrips, final int messages, final String idle, final double seconds)
    {
        final Result base = results.get(0);
        System.out.printf("%nmmx transport benchmark: %d round trips, %d messages of %d-byte payload, " +
            "driver idle strategy %s, one thread per pair, %d cores, %.1f s%n",
            roundTrips, messages, AeronPair.PAYLOAD_LENGTH, idle, Runtime.getRuntime().availableProcessors(), seconds);
        System.out.printf("%-18s %9s %9s %9s %9s %9s %12s %8s | %8s %8s %8s%n", "transport", "p50 µs", "p90 µs",
            "p99 µs", "p99.9 µs", "max µs", "msgs/s", "lost", "p50 ×", "p99 ×", "rate ×");
        for (final Result r : results)
        {
            final Histogram h = r.rttNs();
            System.out.printf("%-18s %9.1f %9.1f %9.1f %9.1f %9.1f %12.0f %8d | %8.2f %8.2f %8.2f%n",
                r.name(), us(h.getValueAtPercentile(50)), us(h.getValueAtPercentile(90)),
                us(h.getValueAtPercentile(99)), us(h.getValueAtPercentile(99.9)), us(h.getMaxValue()),
                r.messagesPerSecond(), r.lost(),
                (double)h.getValueAtPercentile(50) / base.rttNs().getValueAtPercentile(50),
                (double)h.getValueAtPercentile(99) / base.rttNs().getValueAtPercentile(99),
                r.messagesPerSecond() / base.messagesPerSecond());
        }
        System.out.println("ratios are against " + base.name() + " (× > 1: slower latency or higher rate)");
    }

    private static double us(final long ns)
    {
        return ns / 1000.0;
    }

    private static int[] freePorts() throws IOException
    {
        try (DatagramSocket one = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            DatagramSocket two = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0)))
        {
            return new int[]{one.getLocalPort(), two.getLocalPort()};
        }
    }

    private static void deleteRecursively(final Path dir) throws IOException
    {
        if (Files.exists(dir))
        {
            try (Stream<Path> paths = Files.walk(dir))
            {
                for (final Path p : paths.sorted(Comparator.reverseOrder()).toList())
                {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
