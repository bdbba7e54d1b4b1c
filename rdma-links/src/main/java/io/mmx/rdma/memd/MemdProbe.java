package io.mmx.rdma.memd;

import io.mmx.rdma.region.ClusterKey;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;

/**
 * {@code mmx memd probe --address HOST:PORT --key FILE --as ID [--timeout-ms 2000]}: one real
 * authenticated round trip ({@link MemdProtocol#OP_PING}) to a memd, as process ID with the
 * process key derived from the cluster key in FILE. A host that merely accepts TCP is not a
 * live memd: the answer must verify under the key.
 *
 * <p>Exit codes: 0 served, 1 not served (the line says why: unreachable, not a memd or another
 * version, another cluster key, no answer in time), 2 bad arguments.
 */
public final class MemdProbe
{
    private MemdProbe()
    {
    }

    /** Runs the probe; returns the exit code. */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        InetSocketAddress address = null;
        ClusterKey key = null;
        int as = -1;
        int timeoutMs = 2_000;
        try
        {
            for (int i = 0; i < args.length; i++)
            {
                final String option = args[i];
                if (i + 1 >= args.length)
                {
                    throw new IllegalArgumentException("option " + option + " needs a value");
                }
                final String value = args[++i];
                switch (option)
                {
                    case "--address":
                        address = MemdCommandLine.parseAddress(value);
                        break;
                    case "--key":
                        key = MemdCommandLine.readKey(Path.of(value));
                        break;
                    case "--as":
                        as = parseNonNegative(option, value);
                        break;
                    case "--timeout-ms":
                        timeoutMs = parseNonNegative(option, value);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown option " + option + ": the options are --address, " +
                            "--key, --as, --timeout-ms");
                }
            }
            if (address == null || key == null || as < 0 || timeoutMs < 1)
            {
                throw new IllegalArgumentException("usage: memd probe --address HOST:PORT --key CLUSTER_KEY_FILE " +
                    "--as PROCESS_ID [--timeout-ms 2000] (--address, --key and --as are required)");
            }
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("memd probe: " + ex.getMessage());
            return 2;
        }
        final long startNs = System.nanoTime();
        try
        {
            final long regions = MemdRegionLink.ping(address, key.processKey(as), timeoutMs);
            out.printf("memd %s serves: authenticated round trip as process %d in %.1f ms, %d regions held%n",
                format(address), as, (System.nanoTime() - startNs) / 1e6, regions);
            return 0;
        }
        catch (final IOException ex)
        {
            out.println("memd " + format(address) + " not served: " + describe(ex, timeoutMs));
            return 1;
        }
    }

    private static String describe(final IOException ex, final int timeoutMs)
    {
        if (ex instanceof java.net.SocketTimeoutException)
        {
            return "no answer within " + timeoutMs + " ms (a host that accepts TCP but is not a live memd)";
        }
        if (ex instanceof java.net.ConnectException)
        {
            return "connection refused or unreachable (" + ex.getMessage() + "): memd does not run there";
        }
        if (ex instanceof java.io.EOFException)
        {
            return "the peer closed the connection without a memd answer: not a memd, or another mmx version";
        }
        return ex.getMessage();
    }

    private static String format(final InetSocketAddress address)
    {
        return address.getHostString() + ":" + address.getPort();
    }

    private static int parseNonNegative(final String option, final String value)
    {
        try
        {
            final int parsed = Integer.parseInt(value);
            if (parsed >= 0)
            {
                return parsed;
            }
        }
        catch (final NumberFormatException ex)
        {
            // Reported below.
        }
        throw new IllegalArgumentException(option + " '" + value + "' is not a non-negative whole number");
    }
}
