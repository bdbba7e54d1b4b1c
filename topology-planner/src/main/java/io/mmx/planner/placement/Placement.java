package io.mmx.planner.placement;

import java.util.Arrays;

/**
 * Where each process runs: racks × hosts per rack × processes per host. Hosts have global
 * indices {@code 0..hosts()-1}; each host has one NIC and belongs to exactly one rack.
 *
 * <p>{@link #contiguous} fills hosts in id order: process {@code p} lives on host
 * {@code p / procsPerHost} and that host on rack {@code host / hostsPerRack}, so the last rack
 * or host may be partly empty. {@link #explicit} takes any mapping (as read from a plan file)
 * that respects the same capacities.
 */
public final class Placement
{
    private final int racks;
    private final int hostsPerRack;
    private final int procsPerHost;
    private final int[] rackOfProcess;
    private final int[] hostOfProcess;
    private final int[] rackOfHost;
    private final int[] hostStarts;
    private final int[] processesByHost;

    private Placement(
        final int racks,
        final int hostsPerRack,
        final int procsPerHost,
        final int[] rackOfProcess,
        final int[] hostOfProcess,
        final int[] rackOfHost)
    {
        this.racks = racks;
        this.hostsPerRack = hostsPerRack;
        this.procsPerHost = procsPerHost;
        this.rackOfProcess = rackOfProcess;
        this.hostOfProcess = hostOfProcess;
        this.rackOfHost = rackOfHost;

        // Counting sort of processes by host so processesOnHost(h) is a slice, not a scan.
        final int hosts = rackOfHost.length;
        hostStarts = new int[hosts + 1];
        for (final int host : hostOfProcess)
        {
            hostStarts[host + 1]++;
        }
        for (int h = 0; h < hosts; h++)
        {
            hostStarts[h + 1] += hostStarts[h];
        }
        processesByHost = new int[hostOfProcess.length];
        final int[] fill = Arrays.copyOf(hostStarts, hosts);
        for (int p = 0; p < hostOfProcess.length; p++)
        {
            processesByHost[fill[hostOfProcess[p]]++] = p;
        }
    }

    /**
     * Places processes {@code 0..processes-1} in contiguous blocks: {@code procsPerHost} per
     * host, {@code hostsPerRack} hosts per rack.
     *
     * @throws IllegalArgumentException if a dimension is below 1 or the processes do not fit.
     */
    public static Placement contiguous(
        final int processes, final int racks, final int hostsPerRack, final int procsPerHost)
    {
        validateShape(racks, hostsPerRack, procsPerHost);
        if (processes < 1)
        {
            throw new IllegalArgumentException("a placement needs at least 1 process, got " + processes +
                "; pass the plan's n");
        }
        final long capacity = (long)racks * hostsPerRack * procsPerHost;
        if (processes > capacity)
        {
            throw new IllegalArgumentException("n = " + processes + " processes do not fit in " + racks +
                " racks × " + hostsPerRack + " hosts per rack × " + procsPerHost + " processes per host = " +
                capacity + " slots; raise racks, hosts per rack or processes per host");
        }
        final int hosts = racks * hostsPerRack;
        final int[] rackOfHost = new int[hosts];
        for (int h = 0; h < hosts; h++)
        {
            rackOfHost[h] = h / hostsPerRack;
        }
        final int[] hostOfProcess = new int[processes];
        final int[] rackOfProcess = new int[processes];
        for (int p = 0; p < processes; p++)
        {
            hostOfProcess[p] = p / procsPerHost;
            rackOfProcess[p] = hostOfProcess[p] / hostsPerRack;
        }
        return new Placement(racks, hostsPerRack, procsPerHost, rackOfProcess, hostOfProcess, rackOfHost);
    }

    /**
     * A placement from explicit per-process rack and host indices (the arrays are copied).
     * Every process must be placed, each host index must be below {@code racks·hostsPerRack}
     * and belong to one rack only, no rack may use more than {@code hostsPerRack} hosts and no
     * host may hold more than {@code procsPerHost} processes.
     *
     * @throws IllegalArgumentException naming the first process or host that breaks a rule.
     */
    public static Placement explicit(
        final int racks,
        final int hostsPerRack,
        final int procsPerHost,
        final int[] rackOfProcess,
        final int[] hostOfProcess)
    {
        validateShape(racks, hostsPerRack, procsPerHost);
        if (rackOfProcess.length != hostOfProcess.length)
        {
            throw new IllegalArgumentException("the placement lists a rack for " + rackOfProcess.length +
                " processes but a host for " + hostOfProcess.length + "; give both for every process");
        }
        if (rackOfProcess.length < 1)
        {
            throw new IllegalArgumentException("the placement places no processes; give a rack and host for each");
        }
        final int hosts = racks * hostsPerRack;
        final int[] rackOfHost = new int[hosts];
        Arrays.fill(rackOfHost, -1);
        final int[] hostsInRack = new int[racks];
        final int[] processesOnHost = new int[hosts];
        for (int p = 0; p < rackOfProcess.length; p++)
        {
            final int rack = rackOfProcess[p];
            final int host = hostOfProcess[p];
            if (rack < 0 || rack >= racks)
            {
                throw new IllegalArgumentException("process " + p + " is on rack " + rack + ", outside 0.." +
                    (racks - 1) + "; racks are 0-based and below the rack count " + racks);
            }
            if (host < 0 || host >= hosts)
            {
                throw new IllegalArgumentException("process " + p + " is on host " + host + ", outside 0.." +
                    (hosts - 1) + "; hosts are global 0-based indices below racks × hosts per rack = " + hosts);
            }
            if (rackOfHost[host] < 0)
            {
                rackOfHost[host] = rack;
                if (++hostsInRack[rack] > hostsPerRack)
                {
                    throw new IllegalArgumentException("rack " + rack + " uses more than " + hostsPerRack +
                        " hosts (host " + host + " is one too many); raise hosts per rack or move the host");
                }
            }
            else if (rackOfHost[host] != rack)
            {
                throw new IllegalArgumentException("host " + host + " is on rack " + rackOfHost[host] +
                    " for one process but on rack " + rack + " for process " + p +
                    "; a host belongs to exactly one rack");
            }
            if (++processesOnHost[host] > procsPerHost)
            {
                throw new IllegalArgumentException("host " + host + " holds more than " + procsPerHost +
                    " processes (process " + p + " is one too many); raise processes per host or move it");
            }
        }
        return new Placement(racks, hostsPerRack, procsPerHost, rackOfProcess.clone(), hostOfProcess.clone(),
            rackOfHost);
    }

    private static void validateShape(final int racks, final int hostsPerRack, final int procsPerHost)
    {
        if (racks < 1 || hostsPerRack < 1 || procsPerHost < 1)
        {
            throw new IllegalArgumentException("racks, hosts per rack and processes per host must each be at " +
                "least 1, got " + racks + ", " + hostsPerRack + ", " + procsPerHost + "; pass positive values");
        }
        if ((long)racks * hostsPerRack > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException(racks + " racks × " + hostsPerRack + " hosts per rack exceeds " +
                Integer.MAX_VALUE + " hosts; lower racks or hosts per rack");
        }
    }

    /** Number of processes placed (the plan's n). */
    public int processes()
    {
        return rackOfProcess.length;
    }

    /** Racks. */
    public int racks()
    {
        return racks;
    }

    /** Hosts in each rack. */
    public int hostsPerRack()
    {
        return hostsPerRack;
    }

    /** Processes on each host (at most). */
    public int procsPerHost()
    {
        return procsPerHost;
    }

    /** Number of hosts (and NICs), {@code racks · hostsPerRack}, occupied or not. */
    public int hosts()
    {
        return rackOfHost.length;
    }

    /** Rack of {@code process}. */
    public int rackOf(final int process)
    {
        return rackOfProcess[process];
    }

    /** Global host index of {@code process}. */
    public int hostOf(final int process)
    {
        return hostOfProcess[process];
    }

    /** Rack of {@code host}, or -1 for a host of the explicit form that holds no process. */
    public int rackOfHost(final int host)
    {
        return rackOfHost[host];
    }

    /** Processes on {@code host}, ascending; empty for an unoccupied host. */
    public int[] processesOnHost(final int host)
    {
        return Arrays.copyOfRange(processesByHost, hostStarts[host], hostStarts[host + 1]);
    }

    /** How many processes {@code host} holds. */
    public int processCountOnHost(final int host)
    {
        return hostStarts[host + 1] - hostStarts[host];
    }

    /** A copy of the rack of every process, indexed by process id. */
    public int[] rackLabels()
    {
        return rackOfProcess.clone();
    }

    /** A copy of the global host of every process, indexed by process id. */
    public int[] hostLabels()
    {
        return hostOfProcess.clone();
    }

    @Override
    public boolean equals(final Object o)
    {
        if (!(o instanceof Placement))
        {
            return false;
        }
        final Placement that = (Placement)o;
        return racks == that.racks && hostsPerRack == that.hostsPerRack && procsPerHost == that.procsPerHost &&
            Arrays.equals(rackOfProcess, that.rackOfProcess) && Arrays.equals(hostOfProcess, that.hostOfProcess);
    }

    @Override
    public int hashCode()
    {
        return 31 * (31 * Arrays.hashCode(rackOfProcess) + Arrays.hashCode(hostOfProcess)) + racks;
    }

    @Override
    public String toString()
    {
        return "Placement(n=" + processes() + ", racks=" + racks + ", hostsPerRack=" + hostsPerRack +
            ", procsPerHost=" + procsPerHost + ")";
    }
}
