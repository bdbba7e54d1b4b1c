package io.mmx.runtime.sim;

/**
 * A (slot, ballot) pair as a map key of the checkers. Its hash mixes both numbers: a record's
 * own hash, 31 h(slot) + h(ballot), collides for the small numbers a run uses, and the checkers'
 * maps fell back to tree bins (a tenth of the simulator's time in a profile).
 */
record SlotBallot(long slot, long ballot)
{
    @Override
    public int hashCode()
    {
        long h = slot * 0x9E3779B97F4A7C15L + ballot;
        h = (h ^ (h >>> 30)) * 0xBF58476D1CE4E5B9L;
        return (int)(h ^ (h >>> 31));
    }
}
