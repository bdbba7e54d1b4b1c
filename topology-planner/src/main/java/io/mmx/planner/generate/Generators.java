package io.mmx.planner.generate;

import java.util.List;

/**
 * The generators selectable by name that need nothing but (n, degree, seed). The rack-aware
 * generator also needs a placement, so it is made with {@link RackAwareGenerator#RackAwareGenerator}
 * rather than looked up here.
 */
public final class Generators
{
    /** The generator used when none is named. */
    public static final String DEFAULT = RandomRegularGenerator.NAME;

    private static final List<GraphGenerator> ALL = List.of(
        new RandomRegularGenerator(), new CirculantGenerator(), new HypercubeGenerator());

    private Generators()
    {
    }

    /**
     * The generator called {@code name}.
     *
     * @throws IllegalArgumentException listing the known names if there is none.
     */
    public static GraphGenerator byName(final String name)
    {
        for (final GraphGenerator generator : ALL)
        {
            if (generator.name().equals(name))
            {
                return generator;
            }
        }
        final String hint = RackAwareGenerator.NAME.equals(name) ?
            " (" + RackAwareGenerator.NAME + " needs a placement: give racks, hosts per rack and processes per host)" :
            "";
        throw new IllegalArgumentException("unknown generator '" + name + "'" + hint + "; use one of " +
            String.join(", ", allNames()) + " (" + RackAwareGenerator.NAME + " with a placement)");
    }

    /** Every generator name {@code topo plan --generator} accepts: {@link #names()} and the rack-aware one. */
    public static List<String> allNames()
    {
        final java.util.ArrayList<String> all = new java.util.ArrayList<>(names());
        all.add(RackAwareGenerator.NAME);
        return List.copyOf(all);
    }

    /** Names accepted by {@link #byName}, default first. */
    public static List<String> names()
    {
        return ALL.stream().map(GraphGenerator::name).toList();
    }
}
