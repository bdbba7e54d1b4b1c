package io.mmx.perf.idle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What Linux says a process uses, read from {@code /proc}: CPU time (utime + stime, the process
 * and each of its threads) and resident memory split by what is mapped (anonymous memory holds the
 * Java heap and the JVM's own; shared files are the cluster's regions or Aeron's buffers).
 */
public final class ProcFs
{
    /** Clock ticks per second of utime and stime; Linux reports USER_HZ, 100 on every common build. */
    public static final long TICKS_PER_SECOND = ticksPerSecond();

    /** The first line of a mapping in smaps: address range, permissions, offset, device, inode, path. */
    private static final Pattern MAPPING = Pattern.compile("[0-9a-f]+-[0-9a-f]+ ");

    private ProcFs()
    {
    }

    /** The 1, 5 and 15 minute load averages as {@code /proc/loadavg} gives them, or "unknown". */
    public static String loadAverage()
    {
        try
        {
            final String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        }
        catch (final IOException ex)
        {
            return "unknown";
        }
    }

    /**
     * The kernel's USER_HZ from this process's auxiliary vector ({@code AT_CLKTCK}, entry 17), read from
     * {@code /proc/self/auxv}; 100 if it cannot be read. Read, not asked of {@code getconf}: starting a
     * process would leave the JDK's process reaper thread behind in whatever JVM first measures CPU.
     */
    private static long ticksPerSecond()
    {
        try
        {
            final java.nio.ByteBuffer auxv = java.nio.ByteBuffer.wrap(Files.readAllBytes(Path.of("/proc/self/auxv")))
                .order(java.nio.ByteOrder.nativeOrder());
            while (auxv.remaining() >= 16)
            {
                final long type = auxv.getLong();
                final long value = auxv.getLong();
                if (type == 17 && value > 0)
                {
                    return value;
                }
                if (type == 0)
                {
                    break;
                }
            }
            return 100;
        }
        catch (final IOException | RuntimeException ex)
        {
            return 100;
        }
    }

    /** utime + stime of a process or thread from its {@code stat} file, in clock ticks; -1 if it is gone. */
    static long cpuTicks(final Path stat)
    {
        try
        {
            final String s = Files.readString(stat);
            // The command name may hold spaces and parentheses: fields count from the last ')'.
            final String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
    }

    /**
     * @param pid a process.
     * @return utime + stime of process {@code pid} (all its threads, living and ended), in clock ticks; -1 if it
     * is gone.
     */
    public static long cpuTicks(final long pid)
    {
        return cpuTicks(Path.of("/proc", Long.toString(pid), "stat"));
    }

    /**
     * Clock ticks (index 0) and voluntary context switches (index 1: how often a thread parked or
     * waited), of each living thread of {@code pid}, summed by {@link #threadKind}.
     */
    public static Map<String, long[]> threadTicks(final long pid)
    {
        final Map<String, long[]> byKind = new TreeMap<>();
        final Path tasks = Path.of("/proc", Long.toString(pid), "task");
        try (Stream<Path> list = Files.list(tasks))
        {
            for (final Path task : (Iterable<Path>)list::iterator)
            {
                final long ticks = cpuTicks(task.resolve("stat"));
                if (ticks >= 0)
                {
                    final long[] sum = byKind.computeIfAbsent(threadKind(comm(task)), k -> new long[2]);
                    sum[0] += ticks;
                    sum[1] += contextSwitches(task);
                }
            }
        }
        catch (final IOException ex)
        {
            // The process ended: it has no threads left to count.
        }
        return byKind;
    }

    private static long contextSwitches(final Path task)
    {
        try
        {
            long sum = 0;
            for (final String line : Files.readAllLines(task.resolve("status")))
            {
                if (line.startsWith("voluntary_ctxt_switches:"))
                {
                    sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
            return sum;
        }
        catch (final IOException | NumberFormatException ex)
        {
            return 0;
        }
    }

    private static String comm(final Path task)
    {
        try
        {
            return Files.readString(task.resolve("comm")).trim();
        }
        catch (final IOException ex)
        {
            return "?";
        }
    }

    /**
     * The part of the node a thread belongs to, by its name (Linux keeps 15 characters of it): the
     * embedded media driver's shared thread is named after its directory. Of the JVM's own: the
     * compilers, G1's concurrent refinement (the write barrier's cards), and the collector (its
     * workers, concurrent threads and the VM thread that runs pauses).
     */
    static String threadKind(final String comm)
    {
        if (comm.equals("mmx-node"))
        {
            return "node agent";
        }
        if (comm.startsWith("/") || comm.contains("driver-conduc") || comm.startsWith("sender") ||
            comm.startsWith("receiver"))
        {
            return "media driver";
        }
        if (comm.startsWith("aeron-executor"))
        {
            return "driver executor";
        }
        if (comm.startsWith("aeron-client"))
        {
            return "aeron client";
        }
        if (comm.contains("CompilerThre"))
        {
            return "JIT";
        }
        if (comm.startsWith("G1 Refine"))
        {
            return "refinement";
        }
        if (comm.startsWith("GC Thread") || comm.startsWith("G1 ") || comm.equals("VM Thread"))
        {
            return "collector";
        }
        if (comm.startsWith("HTTP") || comm.startsWith("status"))
        {
            return "status server";
        }
        if (comm.equals("java"))
        {
            return "main";
        }
        return "JVM other";
    }

    /** Resident memory of a process in KiB, by what is mapped there. */
    record Memory(long totalKib, long anonKib, long regionsKib, long aeronKib, long otherFileKib)
    {
    }

    /**
     * Resident memory of {@code pid} from {@code /proc/PID/smaps}: regions are mappings under a
     * {@code regions} directory, Aeron's buffers those under an {@code aeron-} directory, anonymous
     * memory holds the Java heap, metaspace, code, thread stacks and direct buffers.
     */
    static Memory memory(final long pid)
    {
        long anon = 0;
        long regions = 0;
        long aeron = 0;
        long other = 0;
        String path = "";
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps"));
        }
        catch (final IOException ex)
        {
            return new Memory(0, 0, 0, 0, 0);
        }
        for (final String line : lines)
        {
            if (MAPPING.matcher(line).lookingAt())
            {
                final String[] f = line.trim().split("\\s+", 6);
                path = f.length == 6 ? f[5] : "";
            }
            else if (line.startsWith("Rss:"))
            {
                final long kib = Long.parseLong(line.replaceAll("[^0-9]", ""));
                if (path.contains("/regions/"))
                {
                    regions += kib;
                }
                else if (path.contains("/aeron-"))
                {
                    aeron += kib;
                }
                else if (path.isEmpty() || path.startsWith("["))
                {
                    anon += kib;
                }
                else
                {
                    other += kib;
                }
            }
        }
        return new Memory(anon + regions + aeron + other, anon, regions, aeron, other);
    }
}
