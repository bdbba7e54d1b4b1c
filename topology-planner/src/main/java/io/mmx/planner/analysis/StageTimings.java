package io.mmx.planner.analysis;

/**
 * Wall-clock time of each analysis stage, in milliseconds.
 *
 * @param structureMillis   degrees, connectivity and components.
 * @param diameterMillis    diameter (exact or double-sweep bound).
 * @param spectrumMillis    Lanczos.
 * @param exactMillis       exact branch and bound (0 when skipped).
 * @param certificateMillis the certified bound.
 * @param attackMillis      the attack search.
 * @param probableMillis    the probable (pairing-model) bound.
 * @param totalMillis       everything.
 */
public record StageTimings(
    long structureMillis,
    long diameterMillis,
    long spectrumMillis,
    long exactMillis,
    long certificateMillis,
    long attackMillis,
    long probableMillis,
    long totalMillis)
{
}
