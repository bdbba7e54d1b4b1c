package io.mmx.rdma.fabric;

import io.mmx.rdma.testing.Await;

import io.mmx.rdma.region.RegionMemory;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.mmx.rdma.fabric.CasHammerChild.CHILDREN;
import static io.mmx.rdma.fabric.CasHammerChild.COUNTER;
import static io.mmx.rdma.fabric.CasHammerChild.DONE;
import static io.mmx.rdma.fabric.CasHammerChild.GO;
import static io.mmx.rdma.fabric.CasHammerChild.KILLED;
import static io.mmx.rdma.fabric.CasHammerChild.READY;
import static io.mmx.rdma.fabric.CasHammerChild.word;

/**
 * Runs {@link CasHammerChild} in three child JVMs against a counter region, SIGKILLs one of
 * them mid-run, waits for the others and checks the history. Every wait has a deadline. The
 * survivors stop halfway through their quota until the victim is dead, so the kill lands while
 * they work however the machine schedules the children.
 */
public final class SigkillHarness implements AutoCloseable
{
    /** Successful increments each survivor makes. */
    public static final long SURVIVOR_QUOTA = 20_000;
    /** The victim's quota: more than it can reach before it is killed. */
    public static final long VICTIM_QUOTA = 1_000_000;
    /** Region 0 must hold this many increments. */
    public static final long MAX_INCREMENTS = 2 * SURVIVOR_QUOTA + VICTIM_QUOTA;

    private static final long KILL_AFTER = 2_000;
    private static final int VICTIM = 2;
    // About 10 s on a quiet machine, 70 s measured with the machine loaded far past its two cores:
    // the deadline only catches a hang.
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(240);

    private final List<Process> children = new ArrayList<>();
    private final Path logDirectory;

    /** @param logDirectory where each child's output goes (named in failure messages). */
    public SigkillHarness(final Path logDirectory)
    {
        this.logDirectory = logDirectory;
    }

    /**
     * Runs the scenario.
     *
     * @param backend  "shm" or "memd".
     * @param location region directory or daemon host:port.
     * @param region0  region 0 as this JVM sees it (a mapping, or the daemon's memory).
     * @return the history summary.
     */
    public String run(final String backend, final String location, final RegionMemory region0) throws Exception
    {
        for (int self = 1; self <= CHILDREN; self++)
        {
            children.add(self == VICTIM ? startChild(backend, location, self, VICTIM_QUOTA, 0)
                : startChild(backend, location, self, SURVIVOR_QUOTA, SURVIVOR_QUOTA / 2));
        }
        final long startNs = System.nanoTime();
        awaitWord(region0, READY, CHILDREN, startNs, "all children ready");
        region0.executeWord(OpType.WRITE, GO, 1, 0);

        awaitWord(region0, DONE + 8L * (VICTIM - 1), KILL_AFTER, startNs, "victim made progress");
        final Process victim = children.get(VICTIM - 1);
        victim.destroyForcibly(); // SIGKILL on Linux
        require(victim.waitFor(10, TimeUnit.SECONDS), "victim did not die");
        require(victim.exitValue() == 137, "victim must die by SIGKILL (exit 137), got " + victim.exitValue());
        final long counterAtKill = word(region0, COUNTER);
        final long survivorsAtKill = word(region0, DONE) + word(region0, DONE + 16);
        region0.executeWord(OpType.WRITE, KILLED, 1, 0);

        for (int self = 1; self <= CHILDREN; self++)
        {
            if (self == VICTIM)
            {
                continue;
            }
            final Process p = children.get(self - 1);
            final long leftNs = DEADLINE_NS - (System.nanoTime() - startNs);
            require(p.waitFor(Math.max(1, leftNs), TimeUnit.NANOSECONDS),
                "survivor " + self + " did not finish in time; see " + logOf(self));
            require(p.exitValue() == 0, "survivor " + self + " failed; see " + logOf(self));
        }
        require(survivorsAtKill <= SURVIVOR_QUOTA,
            "survivors must wait at their pause point until the kill (they had " + survivorsAtKill + ")");
        return CasHammerChild.checkHistory(region0, VICTIM, SURVIVOR_QUOTA, counterAtKill);
    }

    @Override
    public void close()
    {
        children.forEach(Process::destroyForcibly);
    }

    private Process startChild(
        final String backend, final String location, final int self, final long quota, final long pauseAt)
        throws Exception
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final ProcessBuilder builder = new ProcessBuilder(java,
            "-Xmx64m", "-XX:TieredStopAtLevel=1", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"),
            CasHammerChild.class.getName(), backend, location, Integer.toString(self), Long.toString(quota),
            Long.toString(pauseAt));
        builder.redirectErrorStream(true);
        builder.redirectOutput(logOf(self));
        return builder.start();
    }

    private File logOf(final int self)
    {
        return logDirectory.resolve("child-" + self + ".log").toFile();
    }

    private void awaitWord(
        final RegionMemory memory, final long offset, final long atLeast, final long startNs, final String what)
    {
        Await.until(() ->
        {
            for (final Process p : children)
            {
                require(p.isAlive() || p.exitValue() == 0,
                    "a child died early while waiting for: " + what + "; see the logs in " + logDirectory);
            }
            return word(memory, offset) >= atLeast;
        }, DEADLINE_NS - (System.nanoTime() - startNs),
            () -> "waiting for: " + what + " (word at " + offset + " is " + word(memory, offset) + ")");
    }

    private static void require(final boolean condition, final String message)
    {
        if (!condition)
        {
            throw new AssertionError(message);
        }
    }
}
