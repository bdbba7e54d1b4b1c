package io.mmx.runtime.node;

/**
 * Deliberate bugs of a replica outside the protocol core, so that the host simulation can prove
 * its checker catches them (the core's own are {@link io.mmx.runtime.core.Flaw}). {@link #NONE}
 * is the node as specified; nothing but a simulation selects another ({@link InProcessHost}; a
 * node's configuration has no way to set it).
 */
public enum ReplicaFlaw
{
    /** The replica as specified. */
    NONE("the correct replica"),
    /**
     * The duplicate filter remembers only the highest counter of each origin: a command routed
     * again after a leader change, and decided twice, is applied twice once a newer one of its
     * origin was applied in between.
     */
    FILTER_FORGETS_OLDER("the duplicate filter remembers only each origin's highest counter"),
    /**
     * A plan change does not end the replica's era: it goes on applying the era's later slots
     * until its host switches to the next era.
     */
    APPLIES_PAST_PLAN_CHANGE("the replica goes on applying its era's slots after the plan change that ended it"),
    /**
     * A host switches to the next era as soon as one of its replicas applied the plan change, and
     * every replica begins the new era as if it held the state at the change, applied or not.
     */
    SWITCH_SKIPS_STATE("a host switches eras on its first replica's plan change, its other replicas assumed to hold " +
        "the state at the change");

    private final String description;

    ReplicaFlaw(final String description)
    {
        this.description = description;
    }

    /** What the flaw does, in one sentence. */
    public String description()
    {
        return description;
    }

    /** The name used on command lines: lower case with dashes, e.g. {@code filter-forgets-older}. */
    public String cliName()
    {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /** The flaw named {@code name} (either spelling), or null. */
    public static ReplicaFlaw byName(final String name)
    {
        for (final ReplicaFlaw f : values())
        {
            if (f.cliName().equals(name) || f.name().equals(name))
            {
                return f;
            }
        }
        return null;
    }
}
