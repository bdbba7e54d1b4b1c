package io.mmx.planner.plan;

import io.mmx.planner.analysis.AnalysisOptions;

/**
 * What {@code topo plan} was asked for.
 *
 * @param n                    number of processes
 * @param degree               degree of the graph
 * @param seed                 generator seed
 * @param generator            generator name
 * @param layout               racks, hosts and processes per host, or null
 * @param maxCrossRackFraction for the rack-aware generator, or null for its default
 * @param analysis             analysis options
 */
public record PlanRequest(
    int n,
    int degree,
    long seed,
    String generator,
    PlacementLayout layout,
    Double maxCrossRackFraction,
    AnalysisOptions analysis)
{
}
