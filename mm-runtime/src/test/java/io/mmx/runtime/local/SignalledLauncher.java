package io.mmx.runtime.local;

import java.nio.file.Path;
import java.util.List;

/**
 * A launcher for {@code LocalClusterTest}: creates a local cluster in the directory given, prints
 * its memory directory and waits to be stopped by a signal, as {@code mmx demo} under {@code timeout}
 * (or for stdin to close).
 */
public final class SignalledLauncher
{
    private SignalledLauncher()
    {
    }

    /** {@code args[0]}: the cluster directory. */
    public static void main(final String[] args) throws Exception
    {
        final LocalCluster cluster = LocalCluster.create(Path.of(args[0]), LocalCluster.plan(4, 2, 1), 4, List.of());
        System.out.println(cluster.regionDir().getParent());
        System.out.flush();
        // Waits for the signal; if the test itself dies first, its end of stdin closes and this ends too.
        while (System.in.read() >= 0)
        {
            // nothing is sent
        }
        cluster.close();
    }
}
