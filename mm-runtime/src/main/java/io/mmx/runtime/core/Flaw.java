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
    TRUST_TORN_READ("record read trusted without re-reading the head"),
    /** Phase 1 counts distinct executors instead of distinct acceptors. */
    COUNT_EXECUTORS_PHASE1("phase 1 counts executors, not acceptors"),
    /** Phase 1 counts (acceptor, executor) pairs: one acceptor run by two executors counts twice. */
    COUNT_PAIRS_PHASE1("phase 1 counts (acceptor, executor) pairs"),
    /** Phase 2 counts distinct executors instead of distinct acceptors. */
    COUNT_EXECUTORS_PHASE2("phase 2 counts executors, not acceptors"),
    /** Phase 2 counts (acceptor, executor) pairs. */
    COUNT_PAIRS_PHASE2("phase 2 counts (acceptor, executor) pairs"),
    /** A new leader adopts the first value reported for a slot, not the highest-ballot one. */
    ADOPT_FIRST_VALUE("phase 1 adopts the first reported value, not the highest ballot's"),
    /** An acceptor accepts below its promise. */
    ACCEPT_IGNORES_PROMISE("accept does not check the promise"),
    /** Executors reclaim entries below the newest Accept's first slot, decided or not. */
    RECLAIM_EARLY("entries reclaimed below the newest Accept, before they are decided"),
    /** A restarted process ignores the proposer round persisted in its region. */
    FORGET_PROPOSER_ROUND("restart forgets the persisted proposer round"),
    /** A below-floor reply is counted as accepted. */
    BELOW_FLOOR_COUNTED("a below-floor reply counts as accepted"),
    /** A leader skips phase 1 and proposes fresh values at once. */
    SKIP_PHASE1("leader skips phase 1"),
    /** A decided-log read trusts the entry's echo words, without checking DECIDED_THROUGH around it. */
    TRUST_TORN_LOG_READ("decided-log read trusted on its echo words alone"),
    /** An acceptor whose region came back empty rejoins quorums at once, having forgotten its promises. */
    AMNESIAC_REJOINS("an acceptor whose region came back empty rejoins quorums at once"),
    /** An executor writes a delta record into the first delta slot of its lane, even one of the live chain. */
    REUSE_CHAIN_SLOT("delta record written over a record of the chain the head still names");

    private final String description;

    Flaw(final String description)
    {
        this.description = description;
    }

    /** What the flaw does, in one sentence. */
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
