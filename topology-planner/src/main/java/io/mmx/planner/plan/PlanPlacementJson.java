package io.mmx.planner.plan;

import com.fasterxml.jackson.databind.JsonNode;
import io.mmx.planner.io.GraphFileException;
import io.mmx.planner.placement.Placement;

/** Reads the {@code placement} object of a plan file (PlanFile writes it). */
final class PlanPlacementJson
{
    private PlanPlacementJson()
    {
    }

    static Placement read(final JsonNode node, final int n, final String source)
    {
        if (!node.isObject())
        {
            throw new GraphFileException(source + ": field 'placement' must be an object or null");
        }
        final int racks = positive(node, "racks", source);
        final int hostsPerRack = positive(node, "hosts_per_rack", source);
        final int procsPerHost = positive(node, "procs_per_host", source);
        final int[] rack = ids(node, "rack", n, source);
        final int[] host = ids(node, "host", n, source);
        node.fieldNames().forEachRemaining(name ->
        {
            switch (name)
            {
                case "racks", "hosts_per_rack", "procs_per_host", "rack", "host" ->
                {
                }
                default -> throw new GraphFileException(source + ": unknown field 'placement." + name +
                    "' (docs/plan-format.md lists the fields)");
            }
        });
        try
        {
            return Placement.explicit(racks, hostsPerRack, procsPerHost, rack, host);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new GraphFileException(source + ": field 'placement': " + ex.getMessage());
        }
    }

    private static int positive(final JsonNode node, final String name, final String source)
    {
        final JsonNode value = node.get(name);
        if (value == null || !value.isInt() || value.asInt() < 1)
        {
            throw new GraphFileException(source + ": field 'placement." + name + "' must be an integer >= 1" +
                (value == null ? " and is missing" : ", found " + value));
        }
        return value.asInt();
    }

    private static int[] ids(final JsonNode node, final String name, final int n, final String source)
    {
        final JsonNode value = node.get(name);
        if (value == null || !value.isArray())
        {
            throw new GraphFileException(source + ": field 'placement." + name + "' must be an array with one entry " +
                "per process");
        }
        if (value.size() != n)
        {
            throw new GraphFileException(source + ": field 'placement." + name + "' has " + value.size() +
                " entries but the plan has n = " + n + " processes; every process must be placed");
        }
        final int[] ids = new int[n];
        for (int p = 0; p < n; p++)
        {
            final JsonNode id = value.get(p);
            if (!id.isInt())
            {
                throw new GraphFileException(source + ": field 'placement." + name + "[" + p + "]' must be an integer, " +
                    "found " + id);
            }
            ids[p] = id.asInt();
        }
        return ids;
    }
}
