package io.mmx.aeron.transport;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Maps dense process ids 0..n-1 to endpoints ({@code host:port}); several processes may share one
 * endpoint (one JVM hosting several processes, one Aeron image per sending endpoint, not per process).
 * <p>
 * Immutable once built. Built from a spec such as {@code 0-7@127.0.0.1:40001;8-15@127.0.0.1:40002}.
 */
public final class ProcessDirectory
{
    /** Largest number of processes a directory holds (ids are int, memory is the limit). */
    public static final int MAX_PROCESSES = 1 << 20;

    private final int[] endpointIndexByProcess;
    private final String[] endpoints;
    private final int[][] processesByEndpoint;

    private ProcessDirectory(final int[] endpointIndexByProcess, final String[] endpoints)
    {
        this.endpointIndexByProcess = endpointIndexByProcess;
        this.endpoints = endpoints;
        final int[] counts = new int[endpoints.length];
        for (final int e : endpointIndexByProcess)
        {
            counts[e]++;
        }
        processesByEndpoint = new int[endpoints.length][];
        for (int e = 0; e < endpoints.length; e++)
        {
            processesByEndpoint[e] = new int[counts[e]];
            counts[e] = 0;
        }
        for (int p = 0; p < endpointIndexByProcess.length; p++)
        {
            final int e = endpointIndexByProcess[p];
            processesByEndpoint[e][counts[e]++] = p;
        }
    }

    /**
     * Parse {@code range@host:port} entries separated by {@code ;}, where range is {@code a} or {@code a-b}
     * (inclusive). Every id 0..n-1 must be covered exactly once.
     *
     * @param spec the directory spec.
     * @return the directory.
     * @throws IllegalArgumentException naming the bad entry.
     */
    public static ProcessDirectory parse(final String spec)
    {
        if (spec == null || spec.isBlank())
        {
            throw new IllegalArgumentException("process directory is empty; expected e.g. 0-7@127.0.0.1:40001");
        }
        final Map<Integer, String> byId = new HashMap<>();
        for (final String rawEntry : spec.split(";"))
        {
            final String entry = rawEntry.trim();
            if (entry.isEmpty())
            {
                continue;
            }
            final int at = entry.indexOf('@');
            if (at <= 0)
            {
                throw new IllegalArgumentException("directory entry '" + entry + "' must be range@host:port");
            }
            final String range = entry.substring(0, at);
            final String endpoint = entry.substring(at + 1);
            validateEndpoint(endpoint);
            final int dash = range.indexOf('-');
            final int first;
            final int last;
            try
            {
                first = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
                last = dash < 0 ? first : Integer.parseInt(range.substring(dash + 1));
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException("directory entry '" + entry + "' has a bad id range", ex);
            }
            if (first < 0 || last < first || last >= MAX_PROCESSES)
            {
                throw new IllegalArgumentException("directory entry '" + entry +
                    "' has an empty or out-of-range id range (ids are 0.." + (MAX_PROCESSES - 1) + ")");
            }
            for (int id = first; id <= last; id++)
            {
                if (byId.put(id, endpoint) != null)
                {
                    throw new IllegalArgumentException("process " + id + " appears twice in the directory");
                }
            }
        }
        final String[] byProcess = new String[byId.size()];
        for (final Map.Entry<Integer, String> e : byId.entrySet())
        {
            if (e.getKey() >= byProcess.length)
            {
                throw new IllegalArgumentException(
                    "process ids must be 0.." + (byProcess.length - 1) + " without gaps; found " + e.getKey());
            }
            byProcess[e.getKey()] = e.getValue();
        }
        return of(byProcess);
    }

    /**
     * @param endpointByProcess endpoint of each process id, index = id.
     * @return the directory.
     */
    public static ProcessDirectory of(final String[] endpointByProcess)
    {
        if (endpointByProcess.length == 0 || endpointByProcess.length > MAX_PROCESSES)
        {
            throw new IllegalArgumentException("a directory holds 1.." + MAX_PROCESSES + " processes, got " +
                endpointByProcess.length);
        }
        final Map<String, Integer> index = new HashMap<>();
        final List<String> endpoints = new ArrayList<>();
        final int[] endpointIndex = new int[endpointByProcess.length];
        for (int p = 0; p < endpointByProcess.length; p++)
        {
            final String endpoint = endpointByProcess[p];
            validateEndpoint(endpoint);
            endpointIndex[p] = index.computeIfAbsent(endpoint, k ->
            {
                endpoints.add(k);
                return endpoints.size() - 1;
            });
        }
        return new ProcessDirectory(endpointIndex, endpoints.toArray(new String[0]));
    }

    private static void validateEndpoint(final String endpoint)
    {
        final int colon = endpoint == null ? -1 : endpoint.lastIndexOf(':');
        if (colon <= 0)
        {
            throw new IllegalArgumentException("endpoint '" + endpoint + "' must be host:port");
        }
        try
        {
            final int port = Integer.parseInt(endpoint.substring(colon + 1));
            if (port <= 0 || port > 65535)
            {
                throw new IllegalArgumentException("endpoint '" + endpoint + "' has port outside 1..65535");
            }
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("endpoint '" + endpoint + "' has a non-numeric port", ex);
        }
    }

    /** @return number of processes n. */
    public int processCount()
    {
        return endpointIndexByProcess.length;
    }

    /** @return number of distinct endpoints. */
    public int endpointCount()
    {
        return endpoints.length;
    }

    /**
     * @param processId 0..n-1.
     * @return true if the id is in the directory.
     */
    public boolean contains(final int processId)
    {
        return processId >= 0 && processId < endpointIndexByProcess.length;
    }

    /**
     * @param processId 0..n-1.
     * @return index of its endpoint.
     */
    public int endpointIndexOf(final int processId)
    {
        return endpointIndexByProcess[processId];
    }

    /**
     * @param endpointIndex 0..endpointCount-1.
     * @return its host:port.
     */
    public String endpoint(final int endpointIndex)
    {
        return endpoints[endpointIndex];
    }

    /**
     * @param endpoint host:port.
     * @return its index, or -1 if no process lives there.
     */
    public int endpointIndexOf(final String endpoint)
    {
        for (int e = 0; e < endpoints.length; e++)
        {
            if (endpoints[e].equals(endpoint))
            {
                return e;
            }
        }
        return -1;
    }

    /**
     * @param endpointIndex 0..endpointCount-1.
     * @return a copy of the ids hosted there, ascending.
     */
    public int[] processesAt(final int endpointIndex)
    {
        return Arrays.copyOf(processesByEndpoint[endpointIndex], processesByEndpoint[endpointIndex].length);
    }

    /** {@inheritDoc} */
    public String toString()
    {
        return "ProcessDirectory{processes=" + processCount() + ", endpoints=" + endpointCount() + "}";
    }
}
