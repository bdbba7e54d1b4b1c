import com.sun.net.httpserver.HttpServer;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanFile;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.memd.MemdRegionLink;
import io.mmx.rdma.region.ClusterKey;
import io.mmx.rdma.region.PlanDigest;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A stand-in for {@code mmx node} that keeps the node's operations contract (options, the status
 * endpoint and its JSON, exit 0 on SIGTERM) while the real node is being written; the ops
 * end-to-end test runs it when {@code bin/mmx} does not exist. Not a consensus node: it
 *
 * <ul>
 *   <li>creates its processes' regions in its host's memory daemon for real (cluster key, plan
 *   digest: the memd of {@code --memd} must accept them), retrying until the daemon is up;</li>
 *   <li>listens on its {@code --directory} endpoint (TCP standing in for Aeron) so peers can see
 *   it is alive, and every 200 ms probes every peer endpoint and every memd;</li>
 *   <li>reports the tolerance condition computed from those probes: S = processes whose node
 *   answers, reachable acceptors = |N[S]| restricted to regions whose memd answers, needed =
 *   floor(n/2) + 1; leader = the smallest id in S; BLOCKED when reachable &lt; needed.</li>
 * </ul>
 */
public final class ContractNode
{
    private static final int PROBE_TIMEOUT_MS = 200;
    private static final long TICK_MS = 200;

    private final Graph graph;
    private final String planHash;
    private final int[] ids;
    private final Map<InetSocketAddress, int[]> nodes;
    private final Map<InetSocketAddress, int[]> daemons;
    private final InetSocketAddress self;
    private volatile String status = "{}";
    private long ticks;
    private long commitIndex;

    private ContractNode(final Plan plan, final int[] ids, final Map<InetSocketAddress, int[]> nodes,
        final Map<InetSocketAddress, int[]> daemons)
    {
        this.graph = plan.graph();
        this.planHash = plan.contentHash();
        this.ids = ids;
        this.nodes = nodes;
        this.daemons = daemons;
        InetSocketAddress mine = null;
        for (final Map.Entry<InetSocketAddress, int[]> entry : nodes.entrySet())
        {
            if (entry.getValue()[0] == ids[0])
            {
                mine = entry.getKey();
            }
        }
        if (mine == null)
        {
            throw new IllegalArgumentException("--directory does not list process " + ids[0] + " of --ids");
        }
        this.self = mine;
    }

    public static void main(final String[] args) throws Exception
    {
        final Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2)
        {
            options.put(args[i], args[i + 1]);
        }
        for (final String required : List.of("--plan", "--ids", "--directory", "--memory", "--memd", "--cluster-key-file",
            "--status-listen"))
        {
            if (!options.containsKey(required))
            {
                System.err.println("node: missing " + required + " (the contract's options are all required here)");
                System.exit(2);
            }
        }
        final Plan plan = PlanFile.read(Path.of(options.get("--plan")));
        final ContractNode node = new ContractNode(plan, parseIds(options.get("--ids")),
            parseMap(options.get("--directory")), parseMap(options.get("--memd")));
        node.createRegions(ClusterKey.fromFile(Path.of(options.get("--cluster-key-file"))));
        node.serve(parseAddress(options.get("--status-listen")));
    }

    private void createRegions(final ClusterKey key) throws InterruptedException
    {
        final PlanDigest digest = PlanDigest.of(graph);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        for (final int id : ids)
        {
            OpStatus result;
            while ((result = MemdRegionLink.createRegion(daemonOf(id), key, id, 4096, digest,
                TimeUnit.SECONDS.toNanos(2))) != OpStatus.OK)
            {
                if (System.nanoTime() > deadline)
                {
                    System.err.println("node: memd " + daemonOf(id) + " refused region " + id + ": " + result);
                    System.exit(1);
                }
                Thread.sleep(250); // memd may still be starting: retry until the deadline
            }
        }
        System.out.println("node: regions of " + ids.length + " processes held by memd " + daemonOf(ids[0]));
    }

    private void serve(final InetSocketAddress statusAddress) throws IOException, InterruptedException
    {
        final ServerSocket endpoint = new ServerSocket();
        endpoint.bind(self);
        final Thread acceptor = new Thread(() ->
        {
            while (!endpoint.isClosed())
            {
                try (Socket peer = endpoint.accept())
                {
                    peer.getInputStream().available(); // liveness only: accept and close
                }
                catch (final IOException ignored)
                {
                    // closed at shutdown
                }
            }
        }, "endpoint");
        acceptor.setDaemon(true);
        acceptor.start();

        final HttpServer http = HttpServer.create(statusAddress, 16);
        http.createContext("/status", exchange ->
        {
            final byte[] body = status.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody())
            {
                out.write(body);
            }
        });
        tick();
        http.start();
        sun.misc.Signal.handle(new sun.misc.Signal("TERM"), signal ->
        {
            http.stop(0);
            try
            {
                endpoint.close();
            }
            catch (final IOException ignored)
            {
                // exiting anyway
            }
            System.out.println("node: SIGTERM, clean shutdown");
            System.exit(0);
        });
        System.out.println("node: processes " + ids.length + " serving status on " + statusAddress);
        while (true)
        {
            Thread.sleep(TICK_MS);
            tick();
        }
    }

    private void tick()
    {
        final boolean[] live = new boolean[graph.n()];
        for (final Map.Entry<InetSocketAddress, int[]> entry : nodes.entrySet())
        {
            final boolean up = entry.getKey().equals(self) || reachable(entry.getKey());
            for (final int id : entry.getValue())
            {
                live[id] = up;
            }
        }
        final boolean[] regionAlive = new boolean[graph.n()];
        for (final Map.Entry<InetSocketAddress, int[]> entry : daemons.entrySet())
        {
            final boolean up = reachable(entry.getKey());
            for (final int id : entry.getValue())
            {
                regionAlive[id] = up;
            }
        }
        final boolean[] reached = new boolean[graph.n()];
        int leader = -1;
        for (int p = 0; p < graph.n(); p++)
        {
            if (live[p])
            {
                leader = leader < 0 ? p : leader;
                reached[p] = true;
                for (final int q : graph.neighbours(p))
                {
                    reached[q] = true;
                }
            }
        }
        int reachable = 0;
        for (int p = 0; p < graph.n(); p++)
        {
            reachable += reached[p] && regionAlive[p] ? 1 : 0;
        }
        final int needed = graph.n() / 2 + 1;
        final boolean blocked = reachable < needed;
        ticks++;
        commitIndex += blocked ? 0 : 1;
        final StringBuilder json = new StringBuilder(256).append("{\"plan\":\"").append(planHash).append("\",\"processes\":[");
        for (int i = 0; i < ids.length; i++)
        {
            final String role = blocked ? "BLOCKED" : ticks <= 2 ? "RECOVERING" : ids[i] == leader ? "LEADER" : "FOLLOWER";
            json.append(i == 0 ? "" : ",").append("{\"id\":").append(ids[i]).append(",\"role\":\"").append(role)
                .append("\",\"leader\":").append(leader).append(",\"reachableAcceptors\":").append(reachable)
                .append(",\"neededAcceptors\":").append(needed).append(",\"commitIndex\":").append(commitIndex)
                .append(",\"blocked\":").append(blocked).append(",\"qps\":").append(graph.degree(ids[i])).append('}');
        }
        status = json.append("]}").toString();
    }

    private static boolean reachable(final InetSocketAddress address)
    {
        try (Socket socket = new Socket())
        {
            socket.connect(address, PROBE_TIMEOUT_MS);
            return true;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private InetSocketAddress daemonOf(final int id)
    {
        for (final Map.Entry<InetSocketAddress, int[]> entry : daemons.entrySet())
        {
            for (final int member : entry.getValue())
            {
                if (member == id)
                {
                    return entry.getKey();
                }
            }
        }
        throw new IllegalArgumentException("--memd does not map process " + id);
    }

    /** "0-3,8" to {0,1,2,3,8}. */
    private static int[] parseIds(final String spec)
    {
        final List<Integer> ids = new ArrayList<>();
        for (final String part : spec.split(","))
        {
            final int dash = part.indexOf('-');
            final int from = Integer.parseInt(dash < 0 ? part : part.substring(0, dash));
            final int to = dash < 0 ? from : Integer.parseInt(part.substring(dash + 1));
            for (int id = from; id <= to; id++)
            {
                ids.add(id);
            }
        }
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    /** "0-3@10.0.0.1:7400;4-7@10.0.0.2:7400" to address and ids. */
    private static Map<InetSocketAddress, int[]> parseMap(final String spec)
    {
        final Map<InetSocketAddress, int[]> map = new LinkedHashMap<>();
        for (final String entry : spec.split(";"))
        {
            final int at = entry.indexOf('@');
            map.put(parseAddress(entry.substring(at + 1)), parseIds(entry.substring(0, at)));
        }
        return map;
    }

    private static InetSocketAddress parseAddress(final String hostPort)
    {
        final int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }
}
