package io.mmx.runtime.cli;

import io.mmx.planner.plan.ProcessIds;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.HostKeys;
import io.mmx.runtime.node.NodeContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code mmx keys derive}: a host's key file, holding only the keys of the processes that host
 * runs, so its node never needs the cluster key (only memd and the verbs region host do).
 */
@Command(name = "keys", mixinStandardHelpOptions = true,
    description = {"Derives the key file of one host's node from the cluster key. The file holds the keys of " +
        "the processes that node hosts, the transport key and the region fingerprint, and not the cluster key, " +
        "so a node given it with 'mmx node --keys FILE' cannot act as any other process towards memd or a verbs " +
        "region host. Only the daemons, which check every process, need the cluster key."},
    subcommands = {KeysCommand.Derive.class, KeysCommand.Client.class})
final class KeysCommand implements Callable<Integer>
{
    @Override
    public Integer call()
    {
        throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
            "name a subcommand: 'mmx keys derive --cluster-key-file FILE --ids IDS --out FILE' or 'mmx keys client " +
            "--cluster-key-file FILE --plan PLAN --out FILE'");
    }

    /** Gives {@code ctx} its keys from exactly one of the two files; errors name the option and the fix. */
    static void applyKeys(final NodeContext ctx, final Path hostKeyFile, final Path clusterKeyFile) throws IOException
    {
        if ((hostKeyFile == null) == (clusterKeyFile == null))
        {
            throw new IllegalArgumentException("pass exactly one of --keys FILE (this host's key file, from 'mmx " +
                "keys derive') or --cluster-key-file FILE");
        }
        final Path file = hostKeyFile != null ? hostKeyFile : clusterKeyFile;
        if (!Files.isReadable(file))
        {
            throw new IllegalArgumentException("key file " + file + " is not readable: " + (hostKeyFile != null ?
                "derive it with 'mmx keys derive --cluster-key-file FILE --ids IDS --out " + file + "'" :
                "write one with 'head -c 32 /dev/urandom > " + file + "' and give every host the same file"));
        }
        final byte[] bytes = Files.readAllBytes(file);
        if (hostKeyFile != null)
        {
            ctx.hostKeys(HostKeys.parse(bytes, "key file " + file));
        }
        else if (HostKeys.isHostKeyFile(bytes))
        {
            throw new IllegalArgumentException(file + " is a host key file, not the cluster key: pass it with --keys");
        }
        else
        {
            ctx.clusterKey(bytes);
        }
    }

    /** The cluster key's bytes to derive a key file {@code out} from; errors name the file and the fix. */
    static byte[] clusterKeyFor(final Path clusterKeyFile, final Path out) throws IOException
    {
        if (!Files.isReadable(clusterKeyFile))
        {
            throw new IllegalArgumentException("cluster key file " + clusterKeyFile + " is not readable: check " +
                "the path and its permissions");
        }
        if (Files.isDirectory(out))
        {
            throw new IllegalArgumentException("--out " + out + " is a directory: name the key file to write");
        }
        final byte[] bytes = Files.readAllBytes(clusterKeyFile);
        if (HostKeys.isHostKeyFile(bytes))
        {
            throw new IllegalArgumentException(clusterKeyFile + " is a host key file, not the cluster key: " +
                "derive from the cluster's own key file");
        }
        return bytes;
    }

    @Command(name = "derive", mixinStandardHelpOptions = true,
        description = {"Writes the key file of the node that hosts IDS (mode 0600, atomically). Give each host's " +
            "node its own file: 'mmx node --keys FILE'."})
    static final class Derive implements Callable<Integer>
    {
        @Option(names = "--cluster-key-file", paramLabel = "FILE", required = true,
            description = "the cluster key, raw bytes (>= 16)")
        Path clusterKeyFile;

        @Option(names = "--ids", paramLabel = "IDS", required = true,
            description = "the processes that node hosts: 0-3 or 0-3,8")
        String ids;

        @Option(names = "--out", paramLabel = "FILE", required = true, description = "the key file to write")
        Path out;

        @Option(names = "--force", description = "replace an existing file")
        boolean force;

        @Override
        public Integer call() throws IOException
        {
            final int[] hosted = ProcessIds.parse(ids);
            final byte[] bytes = clusterKeyFor(clusterKeyFile, out);
            final HostKeys keys = ClusterKey.of(bytes).hostKeys(hosted);
            try
            {
                keys.write(out, force);
            }
            catch (final FileAlreadyExistsException ex)
            {
                throw new IllegalArgumentException("--out " + out + " exists: pass --force to replace it");
            }
            System.out.println("wrote " + out + ": keys of processes " + ids + " (mode 0600)");
            return 0;
        }
    }

    @Command(name = "client", mixinStandardHelpOptions = true,
        description = {"Writes the client key file of a cluster (mode 0600, atomically): the cluster id and the key " +
            "that signs outside clients' frames ('mmx kv --endpoints ... --key-file FILE', MmxClient). It is derived " +
            "one way from the members' transport key, so a client holding it cannot act as a member."})
    static final class Client implements Callable<Integer>
    {
        @Option(names = "--cluster-key-file", paramLabel = "FILE", required = true,
            description = "the cluster key, raw bytes (>= 16)")
        Path clusterKeyFile;

        @Option(names = "--out", paramLabel = "FILE", required = true, description = "the key file to write")
        Path out;

        @Option(names = "--force", description = "replace an existing file")
        boolean force;

        @Override
        public Integer call() throws IOException
        {
            final byte[] bytes = clusterKeyFor(clusterKeyFile, out);
            final io.mmx.runtime.client.ClientKey key = io.mmx.runtime.client.ClientKey.fromClusterKey(bytes);
            final long clusterId = key.clusterId();
            try
            {
                key.write(out, force);
            }
            catch (final FileAlreadyExistsException ex)
            {
                throw new IllegalArgumentException("--out " + out + " exists: pass --force to replace it");
            }
            System.out.println("wrote " + out + ": the client key of cluster " + String.format("%016x", clusterId) +
                " (mode 0600)");
            return 0;
        }
    }
}
