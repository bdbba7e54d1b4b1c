package io.mmx.rdma.memd;

import io.mmx.rdma.region.ClusterKey;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code mmx memd probe --address HOST:PORT --key FILE --as ID [--timeout-ms 2000]}: one real
 * authenticated round trip ({@link MemdProtocol#OP_PING}) to a memd, as process ID with the
 * process key derived from the cluster key in FILE. A host that merely accepts TCP is not a
 * live memd: the answer must verify under the key.
 *
 * <p>{@code --address} and {@code --as} may be repeated in pairs (the n-th {@code --as} goes with
 * the n-th {@code --address}): the daemons are probed side by side in one JVM, one line each in
 * argument order, so a health check of many hosts pays for one JVM start.
 *
 * <p>Exit codes: 0 every daemon served, 1 some not served (its line says why: unreachable, not a
 * memd or another version, another cluster key, no answer in time), 2 bad arguments.
 */
@Command(name = "probe", mixinStandardHelpOptions = true,
    description = {
        "One authenticated round trip to a memory daemon as process ID, with the process key derived from " +
        "the cluster key: a host that merely accepts TCP is not a live memd. --address and --as may repeat in " +
        "pairs (the n-th --as goes with the n-th --address): the daemons are probed side by side, one line " +
        "each in argument order."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:every daemon served",
        "1:some not served (its line says why)",
        "2:bad arguments"})
public final class MemdProbe implements Callable<Integer>
{
    @Spec
    CommandSpec spec;

    // Checked in call(), not by picocli, so that a misspelt option is named before what is missing.
    @Option(names = "--address", paramLabel = "HOST:PORT", description = "required: a daemon to probe (may repeat)")
    List<String> addressSpecs = new ArrayList<>();

    @Option(names = "--as", paramLabel = "ID",
        description = "required: the process to probe as, one per --address (may repeat)")
    List<Integer> identities = new ArrayList<>();

    @Option(names = "--key", paramLabel = "CLUSTER_KEY_FILE", description = "required: the cluster key file")
    Path keyFile;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "2000",
        description = "how long each daemon has to answer (default ${DEFAULT-VALUE})")
    int timeoutMs;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final List<InetSocketAddress> addresses = new ArrayList<>();
        final ClusterKey key;
        try
        {
            if (addressSpecs.isEmpty() || keyFile == null || identities.isEmpty())
            {
                throw new IllegalArgumentException("--address, --key and --as are required: memd probe --address " +
                    "HOST:PORT --key CLUSTER_KEY_FILE --as PROCESS_ID [--timeout-ms 2000]");
            }
            for (final String address : addressSpecs)
            {
                addresses.add(MemdCommandLine.parseAddress(address));
            }
            key = MemdCommandLine.readKey(keyFile);
            for (final int id : identities)
            {
                if (id < 0)
                {
                    throw new IllegalArgumentException("--as " + id + " is not a process id: give one of 0..n-1");
                }
            }
            if (timeoutMs < 1)
            {
                throw new IllegalArgumentException("--timeout-ms " + timeoutMs + " is out of range: give at least 1");
            }
            if (addresses.size() != identities.size())
            {
                throw new IllegalArgumentException(addresses.size() + " --address but " + identities.size() +
                    " --as: give each address the process to probe as");
            }
        }
        catch (final IllegalArgumentException ex)
        {
            err.println(spec.qualifiedName() + ": error: " + ex.getMessage());
            return 2;
        }
        final String[] lines = new String[addresses.size()];
        final boolean[] served = new boolean[addresses.size()];
        final List<Thread> probes = new ArrayList<>();
        for (int i = 0; i < addresses.size(); i++)
        {
            final int at = i;
            final ClusterKey cluster = key;
            final int timeout = timeoutMs;
            final Thread t = new Thread(() ->
            {
                final InetSocketAddress address = addresses.get(at);
                final int as = identities.get(at);
                final long startNs = System.nanoTime();
                try
                {
                    final long regions = MemdRegionLink.ping(address, cluster.processKey(as), timeout);
                    lines[at] = String.format("memd %s serves: authenticated round trip as process %d in %.1f ms, " +
                        "%d regions held", format(address), as, (System.nanoTime() - startNs) / 1e6, regions);
                    served[at] = true;
                }
                catch (final IOException ex)
                {
                    lines[at] = "memd " + format(address) + " not served: " + describe(ex, timeout);
                }
            }, "memd-probe-" + i);
            t.setDaemon(true);
            probes.add(t);
            t.start();
        }
        int status = 0;
        for (int i = 0; i < probes.size(); i++)
        {
            try
            {
                // Each ping is bounded by its own timeout (connect and read); this only guards the join.
                probes.get(i).join(2L * timeoutMs + 5_000);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            if (lines[i] == null)
            {
                lines[i] = "memd " + format(addresses.get(i)) + " not served: no answer within " + timeoutMs + " ms";
            }
            out.println(lines[i]);
            status = served[i] ? status : 1;
        }
        return status;
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
}
