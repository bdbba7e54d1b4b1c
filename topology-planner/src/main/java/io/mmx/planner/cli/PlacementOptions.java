package io.mmx.planner.cli;

import io.mmx.planner.plan.PlacementLayout;
import picocli.CommandLine.Option;

/** The placement options shared by the commands that create processes. */
final class PlacementOptions
{
    @Option(names = "--racks", paramLabel = "R", description = "racks (give all three of --racks, --hosts-per-rack, --procs-per-host)")
    Integer racks;

    @Option(names = "--hosts-per-rack", paramLabel = "H", description = "hosts in each rack")
    Integer hostsPerRack;

    @Option(names = "--procs-per-host", paramLabel = "P", description = "processes on each host (they share one NIC)")
    Integer procsPerHost;

    @Option(names = "--max-cross-rack-fraction", paramLabel = "F",
        description = "rack-aware generator only: at most this fraction of a process's edges leave its rack")
    Double maxCrossRackFraction;

    /** The layout, or null when none of the three options is given. */
    PlacementLayout toLayout()
    {
        if (racks == null && hostsPerRack == null && procsPerHost == null)
        {
            return null;
        }
        if (racks == null || hostsPerRack == null || procsPerHost == null)
        {
            throw new IllegalArgumentException("a placement needs all three of --racks, --hosts-per-rack and " +
                "--procs-per-host; give the missing " + (racks == null ? "--racks" : hostsPerRack == null ?
                "--hosts-per-rack" : "--procs-per-host"));
        }
        return new PlacementLayout(racks, hostsPerRack, procsPerHost);
    }
}
