package io.mmx.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mmx.runtime.local.ClusterLayout;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code mmx status}: asks every node of a running cluster for its status and shows who leads,
 * how many acceptors the leader reaches, the commit index and the QPs of each process.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = {
        "Shows a running cluster: leader, reachable acceptors, commit index, QPs. Exit code 0 when every " +
        "node answers, a leader is known and nothing is blocked; 1 otherwise."})
final class StatusCommand implements Callable<Integer>
{
    @Option(names = "--cluster", paramLabel = "DIR", defaultValue = "mmx-local",
        description = "a cluster directory written by 'mmx local' (default ${DEFAULT-VALUE})")
    Path cluster;

    @Option(names = "--endpoints", paramLabel = "HOST:PORT", split = ",", description = "status endpoints HOST:PORT,... instead of --cluster")
    List<String> endpoints;

    @Option(names = "--json", description = "print the nodes' JSON documents as one array")
    boolean json;

    @Override
    public Integer call() throws IOException
    {
        final List<String> targets = endpoints != null ? endpoints : fromCluster(cluster);
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        final ObjectMapper mapper = new ObjectMapper();
        final List<JsonNode> docs = new ArrayList<>();
        for (final String target : targets)
        {
            docs.add(fetch(http, mapper, target));
        }
        if (json)
        {
            System.out.println(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(docs));
        }
        // With --json the table is computed for the exit code only: stdout stays one JSON document.
        final PrintStream table = json ? new PrintStream(java.io.OutputStream.nullOutputStream()) : System.out;
        return print(targets, docs, table) ? MmxCommand.OK : MmxCommand.UNHEALTHY;
    }

    /** The status endpoints of the nodes of a cluster directory written by {@code mmx local}. */
    static List<String> fromCluster(final Path cluster) throws IOException
    {
        final ClusterLayout layout = ClusterLayout.read(cluster);
        final List<String> list = new ArrayList<>();
        for (int j = 0; j < layout.jvms(); j++)
        {
            list.add(layout.statusEndpoint(j));
        }
        return list;
    }

    /** A node's {@code /status} document, or null when it does not answer. */
    static JsonNode fetch(final HttpClient http, final ObjectMapper mapper, final String target)
    {
        try
        {
            final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://" + target + "/status"))
                .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? mapper.readTree(r.body()) : null;
        }
        catch (final IOException ex)
        {
            return null;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Prints the table; returns true if the cluster is healthy. */
    static boolean print(final List<String> targets, final List<JsonNode> docs, final PrintStream out)
    {
        int answering = 0;
        int failed = 0;
        int blocked = 0;
        int processes = 0;
        long commit = -1;
        final java.util.Set<Integer> leaders = new java.util.TreeSet<>();
        final ReplicaAgreement agreement = new ReplicaAgreement();
        out.printf("%-22s %-8s %-7s %-12s %-8s %-10s %s%n", "node", "pid", "ids", "roles", "commit", "acceptors", "QPs");
        for (int i = 0; i < targets.size(); i++)
        {
            final JsonNode doc = docs.get(i);
            if (doc == null)
            {
                out.printf("%-22s %s%n", targets.get(i), "UNREACHABLE");
                continue;
            }
            answering++;
            if (doc.hasNonNull("failed"))
            {
                out.printf("%-22s %-8d FAILED: %s%n", targets.get(i), doc.get("pid").asLong(), doc.get("failed").asText());
                failed++;
            }
            final java.util.List<String> roles = new java.util.ArrayList<>();
            final java.util.List<String> qps = new java.util.ArrayList<>();
            int first = Integer.MAX_VALUE;
            int last = -1;
            long nodeCommit = -1;
            String acceptors = "-";
            for (final JsonNode p : doc.get("processes"))
            {
                processes++;
                final String role = p.get("role").asText();
                roles.add(role.substring(0, 1));
                qps.add(Integer.toString(p.get("qps").asInt()));
                first = Math.min(first, p.get("id").asInt());
                last = Math.max(last, p.get("id").asInt());
                nodeCommit = Math.max(nodeCommit, p.get("commitIndex").asLong());
                if (p.get("leader").asInt() >= 0)
                {
                    leaders.add(p.get("leader").asInt());
                }
                if (role.equals("LEADER") || role.equals("BLOCKED") || role.equals("CANDIDATE"))
                {
                    acceptors = p.get("reachableAcceptors").asInt() + "/" + p.get("neededAcceptors").asInt();
                }
                blocked += p.get("blocked").asBoolean() ? 1 : 0;
            }
            commit = Math.max(commit, nodeCommit);
            agreement.add(doc);
            out.printf("%-22s %-8d %-7s %-12s %-8d %-10s %s%n", targets.get(i), doc.get("pid").asLong(),
                first == last ? Integer.toString(first) : first + "-" + last, runs(roles), nodeCommit, acceptors, runs(qps));
        }
        out.println("roles: L leader, C candidate, F follower, B blocked, R recovering (Fx30: 30 followers in a row); " +
            "acceptors: reached/needed");
        out.printf("%d of %d nodes answer, %d processes; leader %s; highest commit index %d; %d blocked%n",
            answering, targets.size(), processes, leaders.isEmpty() ? "unknown" : leaders.toString(), commit, blocked);
        // The plan in service and its era (live plan changes); more than one while a change is under way.
        final java.util.Set<String> plans = new java.util.TreeSet<>();
        for (final JsonNode doc : docs)
        {
            if (doc != null && doc.hasNonNull("plan"))
            {
                plans.add(doc.get("plan").asText() + " (era " + doc.path("era").asInt() + ")");
            }
        }
        out.println((plans.size() > 1 ? "plans " : "plan ") + String.join(", ", plans));
        final ReplicaAgreement.Result replicas = agreement.result();
        out.println(replicas.line());
        final boolean agree = replicas.agree();
        return answering == targets.size() && failed == 0 && blocked == 0 && leaders.size() == 1 && agree;
    }



    /**
     * The values in process order, a run of three or more equal ones written once with its length
     * ({@code L,Fx255}): a node of 256 processes fits a line.
     */
    static String runs(final java.util.List<String> values)
    {
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i < values.size(); )
        {
            int j = i + 1;
            while (j < values.size() && values.get(j).equals(values.get(i)))
            {
                j++;
            }
            final int run = j - i;
            for (int k = 0; k < (run >= 3 ? 1 : run); k++)
            {
                out.append(out.length() == 0 ? "" : ",").append(values.get(i));
            }
            if (run >= 3)
            {
                out.append('x').append(run);
            }
            i = j;
        }
        return out.toString();
    }
}
