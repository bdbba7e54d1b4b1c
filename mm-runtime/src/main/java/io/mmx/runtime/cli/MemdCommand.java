package io.mmx.runtime.cli;

import io.mmx.rdma.memd.MemdCommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code mmx memd}: the per-host memory daemon of rdma-links, serving one-sided operations on the
 * host's regions to plan neighbours over TCP, for clusters without RDMA NICs; {@code mmx memd probe}
 * checks that one serves.
 */
@Command(name = "memd", mixinStandardHelpOptions = true,
    description = {"Runs the memory daemon: holds this host's regions, serves authenticated one-sided ops.",
        "Options: --listen HOST:PORT (default 0.0.0.0:7400), --cluster-key-file PATH (required),",
        "  --plan-edges PATH (required; 'topo' edge list: n, then 'u v' lines), --max-memory BYTES,",
        "  --max-connections N, --max-pending-connections N, --handshake-timeout-ms MS,",
        "  --idle-timeout-ms MS, --max-regions N, --max-region-bytes N, --ready-file PATH.",
        "Exit: 0 after SIGTERM, 2 bad arguments, 3 cannot start or stopped serving.",
        "'mmx memd probe --address HOST:PORT --key CLUSTER_KEY_FILE --as ID [--timeout-ms 2000]':",
        "  one authenticated round trip as process ID; --address/--as pairs may repeat (probed side by side,",
        "  a line each); exit 0 all served, 1 some not served (says why), 2 bad arguments."})
final class MemdCommand implements Callable<Integer>
{
    @Unmatched
    List<String> args = new java.util.ArrayList<>();

    @Override
    public Integer call()
    {
        return MemdCommandLine.run(args.toArray(new String[0]), System.out, System.err);
    }
}
