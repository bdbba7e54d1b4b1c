package io.mmx.planner.plan;

/**
 * The shape of a placement as given on the command line: racks × hosts per rack × processes
 * per host. {@code Planner} turns it into a {@link io.mmx.planner.placement.Placement}.
 */
public record PlacementLayout(int racks, int hostsPerRack, int procsPerHost)
{
}
