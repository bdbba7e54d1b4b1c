package io.mmx.runtime.cli;

import io.mmx.rdma.memd.MemdCommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code mmx memd}: the per-host memory daemon of rdma-links, serving one-sided operations on the
 * host's regions to plan neighbours over TCP, for clusters without RDMA NICs.
 */
@Command(name = "memd", mixinStandardHelpOptions = true,
    description = {"Runs the memory daemon: holds this host's regions, serves authenticated one-sided ops.",
        "Options: --listen HOST:PORT (default 0.0.0.0:7400), --cluster-key-file PATH (required),",
        "  --plan-edges PATH (required; 'topo' edge list: n, then 'u v' lines), --max-connections N,",
        "  --max-regions N, --max-region-bytes N, --ready-file PATH."})
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
