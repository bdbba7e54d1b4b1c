package io.mmx.planner.analysis;

/**
 * Where a graph came from, as far as the probable bound is concerned: only a graph the random
 * generator drew by its pairing path (uniform pairing, edges only added) is covered by the
 * pairing-model count; for any other graph the reason it is not is recorded instead.
 *
 * @param pairingModel    whether the graph is the output of the pairing path for its recorded seed.
 * @param pairingAttempts the most fresh pairings that path may draw (the count pays this factor).
 * @param reason          why the probable bound does not apply, when it does not.
 */
public record GraphOrigin(boolean pairingModel, int pairingAttempts, String reason)
{
    /** A graph drawn by the pairing path, with at most {@code attempts} pairings. */
    public static GraphOrigin pairing(final int attempts)
    {
        return new GraphOrigin(true, attempts, "");
    }

    /** Any other graph; {@code reason} completes "not applicable: ...". */
    public static GraphOrigin other(final String reason)
    {
        return new GraphOrigin(false, 0, reason);
    }

    /** A graph read from a file or otherwise not generated here. */
    public static GraphOrigin imported()
    {
        return other("the graph was not drawn by the planner's random generator from a recorded seed (imported " +
            "or edited), so there is no randomness to bound");
    }
}
