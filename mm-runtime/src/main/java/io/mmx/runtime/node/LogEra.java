package io.mmx.runtime.node;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The era a replica's log is in. A cluster runs in era 0 from its first start; every cold start
 * (every region lost, {@code mmx node --cold-start}) begins the next era on fresh regions, where
 * the protocol core numbers slots from 0 again. The replica keeps one log across eras: era e's
 * slot s is the log's slot {@code e * SLOTS + s}, so every slot of a later era comes after every
 * slot of an earlier one and journals, snapshots and log indexes stay increasing.
 *
 * <p>A new era begins with a preamble decided in its own log: every process proposes an era
 * report (its era and the last slot its state holds, its <em>position</em>). The era starts just
 * after the report that completes the count (every process, or a majority once a report allows
 * it); its starting state is the state at the highest position reported, B. Everything in the
 * preamble other than reports is ignored by every replica alike, and so are reports after the
 * start. A replica whose own state is not exactly at B (behind, or holding an older era's slots
 * beyond B) replaces it with a peer's snapshot. The era, the position and the start are kept in
 * the file {@code era} of the replica's state directory.
 *
 * <p>A plan change ends an era without a preamble (docs/protocol.md §8b): the first plan change
 * decided in a started era ends it at its slot s, every later slot of the era is ignored, and the
 * next era ({@link #after}) starts at once from the state at s, on the new plan.
 */
public final class LogEra
{
    /** Slots of one era: 2^44 (at a million slots a second, more than half a year). */
    public static final long SLOTS = 1L << 44;
    /** Eras: 0..255, so that a log index (slot x maxBatch, maxBatch < 2^11) stays below 2^63. */
    static final int MAX_ERA = 255;
    static final String FILE = "era";

    private final Path file;
    private final int era;
    private final int n;
    private final long ownPosition;
    private final boolean majorityAllowedHere;
    private final boolean[] reported;
    private int reports;
    private boolean majorityAllowed;
    private long highest = -1;
    private boolean started;
    private long basePosition = -1;
    private long startSlot = -1;
    /** The log slot a plan change ended this era at, or -1; and the id of the plan the next era runs. */
    private long endedAt = -1;
    private long nextPlan;

    private LogEra(final Path file, final int era, final int n, final long ownPosition, final boolean majority,
        final boolean started, final long basePosition, final long startSlot)
    {
        this.file = file;
        this.era = era;
        this.n = n;
        this.ownPosition = ownPosition;
        this.majorityAllowedHere = majority;
        this.reported = new boolean[n];
        this.started = started;
        this.basePosition = basePosition;
        this.startSlot = startSlot;
    }

    /** Era 0, started: a replica that keeps no state, or has never been cold-started. */
    static LogEra first(final int n)
    {
        return new LogEra(null, 0, n, -1, false, true, -1, -1);
    }

    /** The era recorded in {@code processDir} (era 0 if none). */
    static LogEra load(final Path processDir, final int n)
    {
        final Path f = processDir.resolve(FILE);
        if (!Files.exists(f))
        {
            return new LogEra(f, 0, n, -1, false, true, -1, -1);
        }
        try
        {
            final List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
            final String[] w = String.join(" ", lines).trim().split("\\s+");
            // era E position X majority M [started B S [ended T P]]
            if (w.length != 6 && w.length != 9 && w.length != 12 || !"era".equals(w[0]) ||
                !"position".equals(w[2]) || !"majority".equals(w[4]) || w.length >= 9 && !"started".equals(w[6]) ||
                w.length == 12 && !"ended".equals(w[9]))
            {
                throw new IllegalStateException("bad contents");
            }
            final int era = Integer.parseInt(w[1]);
            if (era < 0 || era > MAX_ERA)
            {
                throw new IllegalStateException("era " + era + " outside 0.." + MAX_ERA);
            }
            final LogEra e = new LogEra(f, era, n, Long.parseLong(w[3]), Boolean.parseBoolean(w[5]), w.length >= 9,
                w.length >= 9 ? Long.parseLong(w[7]) : -1, w.length >= 9 ? Long.parseLong(w[8]) : -1);
            if (w.length == 12)
            {
                e.endedAt = Long.parseLong(w[10]);
                e.nextPlan = Long.parseUnsignedLong(w[11], 16);
            }
            return e;
        }
        catch (final IOException | RuntimeException ex)
        {
            throw new IllegalStateException("the era file " + f + " cannot be read (" + ex.getMessage() + "); " +
                "it is written whole or not at all, so something else changed it: restore it, or remove the " +
                "process's state directory and let the replica take a peer's snapshot", ex);
        }
    }

    /**
     * Begins the era after {@code previous} for a replica whose state holds slots through
     * {@code position} (-1: nothing usable), and records it before anything of the era is decided.
     */
    static LogEra next(final Path processDir, final int n, final LogEra previous, final long position,
        final boolean majority)
    {
        if (previous.era >= MAX_ERA)
        {
            throw new IllegalStateException("process state in " + processDir + " is in era " + previous.era +
                ", the last: no further cold start is possible");
        }
        final LogEra e = new LogEra(processDir.resolve(FILE), previous.era + 1, n, position, majority, false, -1, -1);
        e.persist();
        return e;
    }

    /**
     * The era a plan change at log slot {@code cut} begins after {@code previous}, on the new plan's
     * {@code n} processes: started at once, from the state at the cut; {@code position} is the last
     * slot this replica's state holds (the cut, or -1 when it does not hold the state at the cut: it
     * did not apply the change yet, or it is new in the plan, and takes a peer's snapshot). Recorded
     * in {@code processDir} before anything of the era is decided (null: a replica that keeps no state).
     */
    static LogEra after(final Path processDir, final int n, final LogEra previous, final long cut,
        final long position)
    {
        if (cut < previous.base() || eraOf(cut) != previous.era || previous.endedAt >= 0 && previous.endedAt != cut)
        {
            throw new IllegalStateException("a plan change at slot " + cut + " cannot end era " + previous.era +
                (previous.endedAt >= 0 ? ", which a change at slot " + previous.endedAt + " ended" : ""));
        }
        if (previous.era >= MAX_ERA)
        {
            throw new IllegalStateException("era " + previous.era + " is the last: no further plan change is possible");
        }
        final LogEra e = new LogEra(processDir == null ? null : processDir.resolve(FILE), previous.era + 1, n,
            position, false, true, cut, cut);
        e.persist();
        return e;
    }

    /**
     * Era {@code era} of a plan this process is new in (or whose host replaced it, empty): started
     * already, from a state this replica takes from a peer's snapshot, which may be at any slot of
     * the era before (the slot of the change that began the era, or later). Recorded in
     * {@code processDir}.
     */
    static LogEra joined(final Path processDir, final int n, final int era)
    {
        if (era < 1 || era > MAX_ERA)
        {
            throw new IllegalStateException("a process joins a plan change's era, 1.." + MAX_ERA + ", not era " + era);
        }
        final LogEra e = new LogEra(processDir.resolve(FILE), era, n, -1, false, true, -2, (era - 1) * SLOTS);
        e.persist();
        return e;
    }

    /**
     * The lowest log slot a snapshot of this era's state may hold through: the slot of the plan
     * change that began the era (a state at the cut is its starting state), the start of the era
     * before for a process that joined it, otherwise the era's own slot 0.
     */
    long earliestState()
    {
        if (era == 0)
        {
            return Long.MIN_VALUE;
        }
        return startSlot >= 0 && startSlot < base() ? startSlot : base();
    }

    /**
     * A plan change to plan {@code planId} was decided at log slot {@code slot}.
     *
     * @return true if it ends the era here: the first change decided after the era started.
     */
    boolean onPlanChange(final long slot, final long planId)
    {
        if (!started || endedAt >= 0)
        {
            return false;
        }
        endedAt = slot;
        nextPlan = planId;
        persist();
        return true;
    }

    /** True if a plan change ended this era and log slot {@code slot} comes after it: ignored. */
    boolean pastEnd(final long slot)
    {
        return endedAt >= 0 && slot > endedAt;
    }

    /** The log slot a plan change ended this era at, or -1. */
    long endedAt()
    {
        return endedAt;
    }

    /** The id of the plan the next era runs (when {@link #endedAt()} is set). */
    long nextPlan()
    {
        return nextPlan;
    }

    int era()
    {
        return era;
    }

    /** The log slot of this era's slot 0. */
    long base()
    {
        return era * SLOTS;
    }

    boolean started()
    {
        return started;
    }

    long ownPosition()
    {
        return ownPosition;
    }

    boolean majorityAllowedHere()
    {
        return majorityAllowedHere;
    }

    /** The highest position reported when the era started (-2 if this replica learnt the start from a snapshot). */
    long basePosition()
    {
        return basePosition;
    }

    /**
     * Counts a report decided at log slot {@code slot}.
     *
     * @return true if the era starts here.
     */
    boolean onReport(final int reporter, final int reportEra, final long position, final boolean majority,
        final long slot)
    {
        if (reportEra < era)
        {
            return false; // a process one era behind: it stops itself when it sees this era's reports or state
        }
        if (reportEra > era)
        {
            throw new IllegalStateException("process " + reporter + " reports era " + reportEra + " but this " +
                "replica's state is in era " + era + ": the cluster was cold-started since this process last ran; " +
                "restart it with --cold-start (a process that missed more than one cold start cannot rejoin yet)");
        }
        if (started || reporter < 0 || reporter >= n || reported[reporter])
        {
            return false;
        }
        reported[reporter] = true;
        reports++;
        highest = Math.max(highest, position);
        majorityAllowed |= majority;
        if (reports == n || majorityAllowed && reports > n / 2)
        {
            started = true;
            basePosition = highest;
            startSlot = slot;
            persist();
            return true;
        }
        return false;
    }

    /** The era started before a peer's snapshot through {@code slot}, which this replica installed. */
    void startedBefore(final long slot)
    {
        if (!started)
        {
            started = true;
            basePosition = -2;
            startSlot = slot;
            persist();
        }
    }

    /** The era of log slot {@code slot}. */
    static long eraOf(final long slot)
    {
        return slot < 0 ? 0 : slot / SLOTS;
    }

    private void persist()
    {
        if (file == null)
        {
            return;
        }
        final String text = "era " + era + "\nposition " + ownPosition + "\nmajority " + majorityAllowedHere + "\n" +
            (started ? "started " + basePosition + " " + startSlot + "\n" : "") +
            (endedAt >= 0 ? "ended " + endedAt + " " + Long.toHexString(nextPlan) + "\n" : "");
        final Path tmp = file.resolveSibling(FILE + ".tmp");
        try
        {
            Files.write(tmp, text.getBytes(StandardCharsets.UTF_8));
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE))
            {
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ))
            {
                dir.force(true);
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot write the era file " + file + ": " + ex.getMessage() +
                "; check that the state directory is writable", ex);
        }
    }
}
