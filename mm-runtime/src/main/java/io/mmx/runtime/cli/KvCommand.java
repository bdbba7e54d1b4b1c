package io.mmx.runtime.cli;

import io.mmx.runtime.client.ClientKey;
import io.mmx.runtime.client.MmxClient;
import io.mmx.runtime.client.MmxClientException;
import io.mmx.runtime.example.kv.KeyValueCommand;
import io.mmx.runtime.local.ClusterLayout;
import org.agrona.concurrent.UnsafeBuffer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code mmx kv}: one call of the key-value store from outside the cluster, through {@link MmxClient}.
 */
@Command(name = "kv", mixinStandardHelpOptions = true,
    description = {"One call of the cluster's key-value store from outside it (the store holds signed 64-bit values " +
        "under keys of 1-14 UTF-8 bytes). put KEY VALUE prints the previous value; get KEY the value; cas KEY VALUE " +
        "--expect OLD sets KEY to VALUE if it holds OLD ('absent': if unset); delete KEY prints the value removed. " +
        "Each call is applied exactly once, even when sent again after a leader change.",
        "Exit codes: 0 done; 1 not done or not known: the cas found another value, a member refused the command, or " +
        "its outcome is unknown (it may still apply, once); 2 bad arguments; 3 no member answered."})
final class KvCommand implements Callable<Integer>
{
    @Parameters(index = "0", paramLabel = "OP", description = "put, get, cas or delete")
    String op;

    @Parameters(index = "1", paramLabel = "KEY", description = "1-14 UTF-8 bytes")
    String key;

    @Parameters(index = "2", arity = "0..1", paramLabel = "VALUE", description = "a signed 64-bit integer (put, cas)")
    String value;

    @Option(names = "--expect", paramLabel = "OLD", description = "cas: the value KEY must hold, or 'absent'")
    String expect;

    @Option(names = "--cluster", paramLabel = "DIR", description = "a cluster directory written by 'mmx local' " +
        "(default mmx-local): its members and its cluster key")
    Path cluster;

    @Option(names = "--endpoints", paramLabel = "HOST:PORT", split = ",",
        description = "members' message endpoints instead of --cluster (the directory's endpoints); needs --key-file")
    List<String> endpoints;

    @Option(names = "--key-file", paramLabel = "FILE", description = "the client key file ('mmx keys client')")
    Path keyFile;

    @Option(names = "--timeout-ms", paramLabel = "MS", defaultValue = "10000",
        description = "how long to wait for the reply (default ${DEFAULT-VALUE})")
    long timeoutMs;

    @Override
    public Integer call() throws IOException
    {
        final byte kind = kind();
        final long v = needsValue(kind) ? number(value, "VALUE") : 0;
        final long expected = kind == KeyValueCommand.CAS ? expectation() : 0;
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[KeyValueCommand.MAX_LENGTH]);
        final int length = KeyValueCommand.encode(buffer, kind, key, v, expected);
        final byte[] command = new byte[length];
        buffer.getBytes(0, command);
        if (timeoutMs <= 0)
        {
            throw new IllegalArgumentException("--timeout-ms must be positive");
        }
        final MmxClient.Context ctx = target().timeoutNs(timeoutMs * 1_000_000L);
        final long reply;
        try (MmxClient client = MmxClient.connect(ctx))
        {
            reply = new UnsafeBuffer(client.execute(command)).getLong(0, ByteOrder.LITTLE_ENDIAN);
        }
        catch (final MmxClientException ex)
        {
            switch (ex.outcome())
            {
                case NO_MEMBER_ANSWERED:
                    System.err.println("mmx kv: error: " + ex.getMessage());
                    return MmxCommand.IO_ERROR;
                case REFUSED:
                    System.err.println("mmx kv: refused, not applied: " + ex.getMessage());
                    return MmxCommand.UNHEALTHY;
                default:
                    System.err.println("mmx kv: outcome unknown: " + ex.getMessage());
                    return MmxCommand.UNHEALTHY;
            }
        }
        return print(kind, reply, expected, v);
    }

    private int print(final byte kind, final long reply, final long expected, final long v)
    {
        switch (kind)
        {
            case KeyValueCommand.GET:
                System.out.println(reply == KeyValueCommand.ABSENT ? key + " is absent" : Long.toString(reply));
                return MmxCommand.OK;
            case KeyValueCommand.PUT:
                System.out.println(key + " = " + v + " (was " + text(reply) + ")");
                return MmxCommand.OK;
            case KeyValueCommand.DELETE:
                System.out.println(reply == KeyValueCommand.ABSENT ? key + " was absent" : "deleted " + key + " (was " +
                    reply + ")");
                return MmxCommand.OK;
            default:
                if (reply == KeyValueCommand.CAS_OK)
                {
                    System.out.println(key + " = " + v + " (was " + text(expected) + ")");
                    return MmxCommand.OK;
                }
                System.out.println("cas failed: " + key + " does not hold " + text(expected) + "; nothing changed");
                return MmxCommand.UNHEALTHY;
        }
    }

    private static String text(final long v)
    {
        return v == KeyValueCommand.ABSENT ? "absent" : Long.toString(v);
    }

    private byte kind()
    {
        final byte kind = switch (op.toLowerCase(Locale.ROOT))
        {
            case "put" -> KeyValueCommand.PUT;
            case "get" -> KeyValueCommand.GET;
            case "cas" -> KeyValueCommand.CAS;
            case "delete" -> KeyValueCommand.DELETE;
            default -> throw new IllegalArgumentException("unknown operation '" + op + "': use put, get, cas or delete");
        };
        if (needsValue(kind) && value == null)
        {
            throw new IllegalArgumentException(op + " needs a VALUE: mmx kv " + op + " KEY VALUE");
        }
        if (!needsValue(kind) && value != null)
        {
            throw new IllegalArgumentException(op + " takes no VALUE, got '" + value + "'");
        }
        if ((kind == KeyValueCommand.CAS) != (expect != null))
        {
            throw new IllegalArgumentException(kind == KeyValueCommand.CAS ? "cas needs --expect OLD (a number, or " +
                "'absent')" : "--expect is for cas only");
        }
        return kind;
    }

    private static boolean needsValue(final byte kind)
    {
        return kind == KeyValueCommand.PUT || kind == KeyValueCommand.CAS;
    }

    private long expectation()
    {
        return expect.equals("absent") ? KeyValueCommand.ABSENT : number(expect, "--expect");
    }

    private static long number(final String text, final String what)
    {
        try
        {
            final long v = Long.parseLong(text);
            if (v == KeyValueCommand.ABSENT)
            {
                throw new IllegalArgumentException(what + " " + text + " is the store's mark for 'absent': use " +
                    "another value");
            }
            return v;
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(what + " '" + text + "' is not a signed 64-bit integer");
        }
    }

    /** The members and the client key, from --endpoints and --key-file or from a cluster directory. */
    private MmxClient.Context target() throws IOException
    {
        if (endpoints != null)
        {
            if (cluster != null)
            {
                throw new IllegalArgumentException("pass either --cluster or --endpoints, not both");
            }
            if (keyFile == null)
            {
                throw new IllegalArgumentException("--endpoints needs --key-file FILE (write one with 'mmx keys client " +
                    "--cluster-key-file K --out FILE')");
            }
            return new MmxClient.Context().endpoints(endpoints).key(ClientKey.read(keyFile));
        }
        final Path dir = cluster != null ? cluster : Path.of("mmx-local");
        if (!Files.isRegularFile(dir.resolve(ClusterLayout.FILE)))
        {
            throw new IllegalArgumentException("no " + ClusterLayout.FILE + " in " + dir + ": start a cluster there " +
                "with 'mmx local --dir " + dir + "', or pass --endpoints and --key-file");
        }
        final ClusterLayout layout = ClusterLayout.read(dir);
        final List<String> members = new ArrayList<>();
        for (final Integer port : layout.messagePorts())
        {
            members.add("127.0.0.1:" + port);
        }
        final ClientKey key = keyFile != null ? ClientKey.read(keyFile) : ClientKey.fromClusterKey(
            Files.readAllBytes(dir.resolve("cluster.key")));
        return new MmxClient.Context().endpoints(members).key(key);
    }
}
