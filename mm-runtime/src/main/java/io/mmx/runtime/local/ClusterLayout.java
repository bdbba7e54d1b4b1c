package io.mmx.runtime.local;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * Which processes each JVM of a local cluster hosts and where it listens: the message endpoint of
 * the directory and the status endpoint. Written to {@code cluster.properties} in the cluster's
 * directory so that {@code mmx status --cluster DIR} finds a running cluster.
 *
 * @param n            processes.
 * @param procsPerJvm  processes per JVM (the last JVM may host fewer).
 * @param messagePorts UDP port of each JVM.
 * @param statusPorts  HTTP status port of each JVM.
 */
public record ClusterLayout(int n, int procsPerJvm, List<Integer> messagePorts, List<Integer> statusPorts)
{
    /** The file name inside a cluster directory. */
    public static final String FILE = "cluster.properties";

    /** JVMs in the cluster. */
    public int jvms()
    {
        return (n + procsPerJvm - 1) / procsPerJvm;
    }

    /** First process of JVM {@code j}. */
    public int firstId(final int j)
    {
        return j * procsPerJvm;
    }

    /** Last process of JVM {@code j}, inclusive. */
    public int lastId(final int j)
    {
        return Math.min(n, (j + 1) * procsPerJvm) - 1;
    }

    /** The processes JVM {@code j} hosts, ascending. */
    public int[] ids(final int j)
    {
        final int[] ids = new int[lastId(j) - firstId(j) + 1];
        for (int i = 0; i < ids.length; i++)
        {
            ids[i] = firstId(j) + i;
        }
        return ids;
    }

    /** The JVM hosting {@code process}. */
    public int jvmOf(final int process)
    {
        return process / procsPerJvm;
    }

    /** The ids of JVM {@code j} as {@code a-b}. */
    public String idsSpec(final int j)
    {
        return firstId(j) == lastId(j) ? Integer.toString(firstId(j)) : firstId(j) + "-" + lastId(j);
    }

    /** The message directory, {@code 0-3@127.0.0.1:p0;4-7@127.0.0.1:p1;...}. */
    public String directorySpec()
    {
        final StringBuilder sb = new StringBuilder();
        for (int j = 0; j < jvms(); j++)
        {
            sb.append(j == 0 ? "" : ";").append(idsSpec(j)).append("@127.0.0.1:").append(messagePorts.get(j));
        }
        return sb.toString();
    }

    /** The status endpoint of JVM {@code j}. */
    public String statusEndpoint(final int j)
    {
        return "127.0.0.1:" + statusPorts.get(j);
    }

    /** Writes {@code DIR/cluster.properties}. */
    public void write(final Path dir) throws IOException
    {
        final Properties p = new Properties();
        p.setProperty("n", Integer.toString(n));
        p.setProperty("procsPerJvm", Integer.toString(procsPerJvm));
        p.setProperty("messagePorts", join(messagePorts));
        p.setProperty("statusPorts", join(statusPorts));
        try (Writer out = Files.newBufferedWriter(dir.resolve(FILE), StandardCharsets.UTF_8))
        {
            p.store(out, "mmx local cluster: read by 'mmx status --cluster " + dir + "'");
        }
    }

    /** Reads {@code DIR/cluster.properties}. */
    public static ClusterLayout read(final Path dir) throws IOException
    {
        final Path file = dir.resolve(FILE);
        if (!Files.isRegularFile(file))
        {
            throw new IOException("no " + FILE + " in " + dir + ": start a cluster there with 'mmx local --dir " +
                dir + "', or pass --endpoints");
        }
        final Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8))
        {
            p.load(in);
        }
        try
        {
            return new ClusterLayout(Integer.parseInt(p.getProperty("n")), Integer.parseInt(p.getProperty("procsPerJvm")),
                split(p.getProperty("messagePorts")), split(p.getProperty("statusPorts")));
        }
        catch (final RuntimeException ex)
        {
            throw new IOException(file + " is damaged (" + ex.getMessage() + "): restart the cluster with 'mmx local'");
        }
    }

    private static String join(final List<Integer> ports)
    {
        final StringBuilder sb = new StringBuilder();
        for (final int port : ports)
        {
            sb.append(sb.length() == 0 ? "" : ",").append(port);
        }
        return sb.toString();
    }

    private static List<Integer> split(final String s)
    {
        final List<Integer> ports = new ArrayList<>();
        for (final String part : s.split(","))
        {
            ports.add(Integer.parseInt(part.trim()));
        }
        return ports;
    }
}
