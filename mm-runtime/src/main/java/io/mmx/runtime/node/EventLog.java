package io.mmx.runtime.node;

import java.io.PrintStream;
import java.time.Instant;

/**
 * The node's event lines on stderr, one per event, in a stable logfmt format that tools can parse
 * and people can read:
 *
 * <pre>
 * ts=2026-11-24T10:31:02.114Z level=INFO event=snapshot_installed process=3 msg="installed a peer's snapshot ..."
 * </pre>
 *
 * {@code ts} (UTC, milliseconds), {@code level} ({@link Level}), {@code event} (a fixed name per
 * kind of event, listed in docs/node.md), {@code process} when the event is one hosted process's
 * (omitted otherwise), then {@code msg}, a sentence for people, always last and always quoted.
 * Field order never changes; new fields are added before {@code msg}.
 */
public final class EventLog
{
    /** How much an operator should care. */
    public enum Level
    {
        /** Normal operation worth a line: a restore, an installed snapshot, an era started. */
        INFO,
        /** Degraded but carrying on: a skipped snapshot, a refused transfer. */
        WARN,
        /** Something failed and needs a person: the agent stopped, state could not be written. */
        ERROR
    }

    private static final PrintStream OUT = System.err;
    /** Where tests read the lines too (each line is still printed); empty in production. */
    private static final java.util.List<java.util.function.Consumer<String>> TAPS =
        new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Open {@link #muted()} scopes: while any is open, lines are not printed (taps still see them). */
    private static final java.util.concurrent.atomic.AtomicInteger MUTED = new java.util.concurrent.atomic.AtomicInteger();

    private EventLog()
    {
    }

    /** A scope of {@link #muted()}; closing it twice closes it once. */
    public interface Muted extends AutoCloseable
    {
        @Override
        void close();
    }

    /**
     * Stops printing until the returned scope is closed: a simulation runs thousands of virtual
     * failovers whose lines, stamped with wall time, would say nothing. Scopes nest.
     */
    public static Muted muted()
    {
        MUTED.incrementAndGet();
        final java.util.concurrent.atomic.AtomicBoolean open = new java.util.concurrent.atomic.AtomicBoolean(true);
        return () ->
        {
            if (open.getAndSet(false))
            {
                MUTED.decrementAndGet();
            }
        };
    }

    /** One event of hosted process {@code process} (or -1 for the node as a whole). */
    public static void log(final Level level, final String event, final int process, final String message)
    {
        if (MUTED.get() > 0 && TAPS.isEmpty())
        {
            return;
        }
        final String line = line(Instant.now(), level, event, process, message);
        if (MUTED.get() == 0)
        {
            OUT.println(line);
        }
        for (final java.util.function.Consumer<String> tap : TAPS)
        {
            tap.accept(line);
        }
    }

    /** Tests: {@code tap} sees every line from now on, until it is removed with {@link #untap}. */
    static void tap(final java.util.function.Consumer<String> tap)
    {
        TAPS.add(tap);
    }

    static void untap(final java.util.function.Consumer<String> tap)
    {
        TAPS.remove(tap);
    }

    /** One event of the node as a whole. */
    public static void log(final Level level, final String event, final String message)
    {
        log(level, event, -1, message);
    }

    /**
     * The era the calling thread works for, as the node's agent sets it before each era's duty cycle:
     * lines of era 1 and later say {@code era=N}, since a node's ended era serves its peers for a while
     * after the next one began. Element 0 is the era; element 1 is non-zero once the thread's node
     * switched eras, from when on era 0's lines say {@code era=0} too. Read when a line is written.
     */
    private static final ThreadLocal<int[]> ERA_OF_THREAD = ThreadLocal.withInitial(() -> new int[2]);

    /** The calling thread's era cell: the agent writes the era it drives into element 0 (see above). */
    static int[] eraOfThread()
    {
        return ERA_OF_THREAD.get();
    }

    /** The line {@link #log} prints. */
    static String line(final Instant at, final Level level, final String event, final int process,
        final String message)
    {
        final StringBuilder sb = new StringBuilder(96 + message.length());
        sb.append("ts=").append(at.truncatedTo(java.time.temporal.ChronoUnit.MILLIS)).append(" level=")
            .append(level.name()).append(" event=").append(event);
        if (process >= 0)
        {
            sb.append(" process=").append(process);
        }
        final int[] era = ERA_OF_THREAD.get();
        if (era[0] > 0 || era[1] != 0)
        {
            sb.append(" era=").append(era[0]);
        }
        sb.append(" msg=\"");
        for (int i = 0; i < message.length(); i++)
        {
            final char c = message.charAt(i);
            switch (c)
            {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                default -> sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
