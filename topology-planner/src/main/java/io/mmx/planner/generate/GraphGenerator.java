package io.mmx.planner.generate;

import io.mmx.planner.graph.Graph;

/**
 * Makes a connected simple {@code degree}-regular graph on {@code n} vertices. The same
 * arguments always give the same graph: every generator draws its randomness from
 * {@code seed} alone.
 */
public interface GraphGenerator
{
    /** The name used on the command line and recorded in the plan file. */
    String name();

    /**
     * Generates the graph.
     *
     * @throws IllegalArgumentException if no such graph exists for these arguments; the message
     *                                  names the problem and what to change.
     */
    Graph generate(int n, int degree, long seed);
}
