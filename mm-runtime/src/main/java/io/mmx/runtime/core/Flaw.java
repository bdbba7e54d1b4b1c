package io.mmx.runtime.core;

/**
 * Deliberate protocol bugs, one branch point each in the core, so that the simulator can prove
 * its checkers catch them. {@link #NONE} is the protocol; nothing but a simulation selects
 * another ({@code CoreConfig.flaw}; a node's configuration has no way to set it).
 */
public enum Flaw
{
    /** The protocol as specified. */
    NONE("the correct protocol"),
    /** Quorum of n/2 instead of more than n/2: two disjoint quorums exist. */
    HALF_QUORUM("quorum of n/2 acceptors instead of more than n/2"),
    /** Acceptor transition published by a plain write of the head instead of a CAS: lost updates. */
    TWO_WRITE_TRANSITION("head published with a plain write instead of a CAS"),
    /** A record read is trusted without re-reading the head: a torn read becomes a reply. */
    TRUST_TORN_READ("record read trusted without re-reading the head");

    private final String description;

    Flaw(final String description)
    {
        this.description = description;
    }

    public String description()
    {
        return description;
    }

    /** The name used on command lines: lower case with dashes, e.g. {@code half-quorum}. */
    public String cliName()
    {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /** The flaw named {@code name} (either spelling), or null. */
    public static Flaw byName(final String name)
    {
        for (final Flaw f : values())
        {
            if (f.cliName().equals(name) || f.name().equals(name))
            {
                return f;
            }
        }
        return null;
    }
}
