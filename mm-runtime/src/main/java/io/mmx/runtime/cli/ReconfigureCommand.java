package io.mmx.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanChanges;
import io.mmx.planner.plan.PlanFile;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code mmx reconfigure}: moves a running cluster to a new plan without stopping it
 * (docs/protocol.md §8b). It reads every node's status, shows the plan diff and both plans'
 * tolerance, checks that every node holds the new plan, then proposes the change through one node
 * and waits until every node serves the new plan.
 */
@Command(name = "reconfigure", mixinStandardHelpOptions = true,
    description = {
        "Moves a running cluster to a new plan live: the change is a command in the log, and every node " +
        "begins a new era on the new plan at the slot it was decided. Checks first that the nodes serve the " +
        "same plan and hold the new plan file in their plans directory (mmx node --plans, default the " +
        "directory of --plan), and shows the diff and both plans' tolerance; --dry-run stops there. The real " +
        "run waits until every node that answers serves the new plan, and every node the plan leaves out " +
        "(a shrink by whole nodes) has left. A node that does not answer counts as crashed, and a process new " +
        "in the plan (a grow) as down: the change goes ahead only if the live processes are a majority of the " +
        "new plan by themselves, and the others join later with 'mmx node --join-era E' (a host replacing a " +
        "lost one, too). Exit 0 when the change is active (or the dry run passed), 1 when no node answers, one " +
        "has failed or one did not switch in time, 2 for a plan a node does not hold, a node the plan would " +
        "split, or a change the live processes could not carry."})
final class ReconfigureCommand implements Callable<Integer>
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--plan", paramLabel = "NEW", required = true, description = "the plan to move to (topo plan, grow, shrink)")
    Path plan;

    @Option(names = "--cluster", paramLabel = "DIR", defaultValue = "mmx-local",
        description = "a cluster directory written by 'mmx local' (default ${DEFAULT-VALUE})")
    Path cluster;

    @Option(names = "--endpoints", paramLabel = "HOST:PORT", split = ",",
        description = "every node's status endpoint HOST:PORT,... instead of --cluster")
    List<String> endpoints;

    @Option(names = "--dry-run", description = "check and show the diff and tolerances; propose nothing")
    boolean dryRun;

    @Option(names = "--unheld-ok", description = "with --dry-run: list the nodes that do not hold the plan yet " +
        "without failing (for a dry run before the plan file is copied to them)")
    boolean unheldOk;

    @Option(names = "--timeout-s", paramLabel = "S", defaultValue = "60",
        description = "how long to wait for the change to be decided and then active everywhere (default ${DEFAULT-VALUE})")
    int timeoutS;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private final ObjectMapper mapper = new ObjectMapper();

    @Override
    public Integer call() throws IOException, InterruptedException
    {
        final PrintWriter out = spec.commandLine().getOut();
        if (unheldOk && !dryRun)
        {
            return refuse("--unheld-ok is for a dry run: a change is proposed only when every node holds the plan",
                MmxCommand.BAD_INPUT);
        }
        if (timeoutS < 1)
        {
            return refuse("--timeout-s must be at least 1, got " + timeoutS, MmxCommand.BAD_INPUT);
        }
        final Plan next = PlanFile.readSealed(plan);
        final List<String> all = endpoints != null ? endpoints : StatusCommand.fromCluster(cluster);
        final List<String> targets = new ArrayList<>();
        final List<String> down = new ArrayList<>();
        final List<JsonNode> docs = new ArrayList<>();
        for (final String target : all)
        {
            final JsonNode doc = StatusCommand.fetch(http, mapper, target);
            if (doc == null)
            {
                down.add(target);
                continue;
            }
            if (doc.path("left").asBoolean())
            {
                out.println("left       " + target + ": it left the cluster at an earlier change; stop its services");
                continue;
            }
            if (doc.hasNonNull("failed"))
            {
                return refuse("node " + target + " has failed (" + doc.get("failed").asText() + "): restart it first",
                    MmxCommand.UNHEALTHY);
            }
            targets.add(target);
            docs.add(doc);
        }
        if (targets.isEmpty())
        {
            return refuse("no node answers at " + String.join(", ", all) + ": check the endpoints (--endpoints " +
                "HOST:PORT,... of the nodes' --status-listen)", MmxCommand.UNHEALTHY);
        }
        final String inService = docs.get(0).get("plan").asText();
        for (int i = 1; i < docs.size(); i++)
        {
            if (!docs.get(i).get("plan").asText().equals(inService))
            {
                return refuse("nodes " + targets.get(0) + " and " + targets.get(i) + " serve different plans (" +
                    inService + ", " + docs.get(i).get("plan").asText() + "): a change is still under way, or the " +
                    "endpoints name two clusters; wait, or give one cluster's endpoints", MmxCommand.UNHEALTHY);
            }
        }
        final int era = docs.get(0).path("era").asInt();
        if (next.contentHash().equals(inService))
        {
            out.println("plan " + next.contentHash() + " is already in service (era " + era + ")");
            return MmxCommand.OK;
        }
        final Plan current = PlanFile.read(new java.io.ByteArrayInputStream(get(targets.get(0), "/plan").body()
            .getBytes(StandardCharsets.UTF_8)), targets.get(0) + "/plan");
        out.println("in service " + current.contentHash() + " (era " + era + ", " + targets.size() + " of " +
            all.size() + " nodes answer)");
        for (final String target : down)
        {
            out.println("down       " + target + ": its processes count as crashed; after the change it joins " +
                "with mmx node --join-era");
        }
        PlanChanges.printDiff(current, next, out);
        // Nodes whose processes the new plan leaves out leave the cluster once the change is decided.
        final List<String> leaving = new ArrayList<>();
        for (int i = 0; i < docs.size(); i++)
        {
            int in = 0;
            int outside = 0;
            for (final JsonNode p : docs.get(i).path("processes"))
            {
                if (p.get("id").asInt() < next.n())
                {
                    in++;
                }
                else
                {
                    outside++;
                }
            }
            if (outside > 0 && in > 0)
            {
                return refuse(plan + " has " + next.n() + " processes: it keeps some of the processes of node " +
                    targets.get(i) + " and removes others, which a running node cannot do; shrink by whole hosts " +
                    "(topo shrink --remove K removes the K highest ids)", MmxCommand.BAD_INPUT);
            }
            if (outside > 0)
            {
                leaving.add(targets.get(i));
                out.println("leaving    " + targets.get(i) + ": none of its processes is in the new plan; it leaves " +
                    "the cluster once the change is decided");
            }
        }
        final int[] up = liveProcesses(docs);
        final int[] live = java.util.Arrays.stream(up).filter(id -> id < next.n()).toArray();
        out.println("live now   " + PlanChanges.liveQuorum(current, up).describe());
        final PlanChanges.LiveQuorum after = PlanChanges.liveQuorum(next, live);
        out.println("live after " + after.describe());
        if (!after.holds())
        {
            return refuse("refused: in " + plan + " " + after.describe(), MmxCommand.BAD_INPUT);
        }
        if (after.live() < next.n())
        {
            out.printf("new era    the %d live processes' regions are its acceptors until the %d others join; a " +
                "quorum needs %d: %s%n", after.live(), next.n() - after.live(), after.quorum(),
                2 * after.live() > next.n() ? "it can decide" : "it could decide nothing");
        }
        if (2 * after.live() <= next.n())
        {
            // The new era's regions are made by their own processes as they start it: a process down at the
            // change, or new in the plan, has none until it joins, so until then only the live ones' exist.
            return refuse("refused: " + after.live() + " live processes of n = " + next.n() + " would begin the new " +
                "era, and a process down at the change or new in the plan has no region in it until it joins, so " +
                "the era's acceptors are the live processes alone, below the quorum of " + after.quorum() + ": " +
                "start the down nodes first, or change the plan when more are up", MmxCommand.BAD_INPUT);
        }
        final List<String> missing = new ArrayList<>();
        for (final String target : targets)
        {
            if (get(target, "/plans?hash=" + URLEncoder.encode(next.contentHash(), StandardCharsets.UTF_8))
                .statusCode() != 200)
            {
                missing.add(target);
            }
        }
        if (!missing.isEmpty() && dryRun && unheldOk)
        {
            out.println("held       not yet by " + String.join(", ", missing) + " (the real run needs it there)");
            out.println("dry run: nothing proposed");
            out.flush();
            return MmxCommand.OK;
        }
        if (!missing.isEmpty())
        {
            return refuse("nodes " + String.join(", ", missing) + " do not hold " + plan + " (" + next.contentHash() +
                "): copy the plan file into each node's plans directory (mmx node --plans, default the directory " +
                "of its --plan), then run this again", MmxCommand.BAD_INPUT);
        }
        out.println("held       every node holds " + next.contentHash());
        if (dryRun)
        {
            out.println("dry run: nothing proposed");
            out.flush();
            return MmxCommand.OK;
        }
        if (next.n() > current.n())
        {
            out.println("new        processes " + current.n() + "-" + (next.n() - 1) + " are new: after the change, " +
                "start their nodes with --join-era (the era is printed below)");
        }
        return propose(targets, down, leaving, current, next, docs, out);
    }

    /**
     * Proposes the change through the first node, waits until every node serves the new plan, then
     * reports the links the staying nodes rewired against the diff ({@link #reportLinks}).
     */
    private int propose(final List<String> targets, final List<String> down, final List<String> leaving,
        final Plan current, final Plan next, final List<JsonNode> docs, final PrintWriter out)
        throws IOException, InterruptedException
    {
        final List<String> staying = new ArrayList<>();
        final List<JsonNode> stayingDocs = new ArrayList<>();
        for (int i = 0; i < targets.size(); i++)
        {
            if (!leaving.contains(targets.get(i)))
            {
                staying.add(targets.get(i));
                stayingDocs.add(docs.get(i));
            }
        }
        final long startNs = System.nanoTime();
        final long deadlineNs = startNs + timeoutS * 1_000_000_000L;
        // Links to new neighbours open before the change takes effect: every staying node connects the
        // memd sessions (or verbs queue pairs) of the edges the change adds at its processes, and checks
        // it can run the plan.
        long prepared = 0;
        for (final String target : staying)
        {
            final HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://" + target +
                "/prepare?plan=" + URLEncoder.encode(next.contentHash(), StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(timeoutS)).build(),
                HttpResponse.BodyHandlers.ofString());
            final JsonNode doc = mapper.readTree(answer.body());
            if (answer.statusCode() != 200)
            {
                return refuse("node " + target + " cannot prepare the change: " + doc.path("error").asText(
                    answer.body()), answer.statusCode() == 409 ? MmxCommand.BAD_INPUT : MmxCommand.UNHEALTHY);
            }
            prepared += doc.path("connected").asLong();
        }
        if (sumLinks(stayingDocs, "open") > 0)
        {
            out.printf("prepared   the staying nodes connected %d %s for the edges the change adds, " +
                "before proposing it%n", prepared, linkKind(stayingDocs));
        }
        out.println("proposing  the change through " + targets.get(0));
        out.flush();
        final HttpResponse<String> decided = http.send(HttpRequest.newBuilder(URI.create("http://" + targets.get(0) +
            "/reconfigure?plan=" + URLEncoder.encode(next.contentHash(), StandardCharsets.UTF_8)))
            .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(timeoutS)).build(),
            HttpResponse.BodyHandlers.ofString());
        final JsonNode answer = mapper.readTree(decided.body());
        if (decided.statusCode() != 200)
        {
            return refuse("the change was not decided: " + answer.path("error").asText(decided.body()),
                decided.statusCode() == 409 ? MmxCommand.BAD_INPUT : MmxCommand.UNHEALTHY);
        }
        out.printf("decided    at log index %d after %d ms%n", answer.get("logIndex").asLong(),
            (System.nanoTime() - startNs) / 1_000_000);
        out.flush();
        final List<String> behind = new ArrayList<>(targets);
        int newEra = -1;
        while (!behind.isEmpty() && System.nanoTime() < deadlineNs)
        {
            for (int i = behind.size() - 1; i >= 0; i--)
            {
                final JsonNode doc = StatusCommand.fetch(http, mapper, behind.get(i));
                if (leaving.contains(behind.get(i)))
                {
                    if (doc == null || doc.path("left").asBoolean())
                    {
                        out.printf("left       %s after %d ms%n", behind.get(i), (System.nanoTime() - startNs) / 1_000_000);
                        out.flush();
                        behind.remove(i);
                    }
                    continue;
                }
                if (doc != null && doc.hasNonNull("failed"))
                {
                    return refuse("node " + behind.get(i) + " failed during the change: " + doc.get("failed").asText(),
                        MmxCommand.UNHEALTHY);
                }
                if (doc != null && next.contentHash().equals(doc.get("plan").asText()))
                {
                    newEra = doc.path("era").asInt();
                    out.printf("switched   %s to era %d after %d ms%n", behind.get(i), newEra,
                        (System.nanoTime() - startNs) / 1_000_000);
                    out.flush();
                    behind.remove(i);
                }
            }
            if (!behind.isEmpty())
            {
                Thread.sleep(50);
            }
        }
        if (!behind.isEmpty())
        {
            return refuse("the change was decided but nodes " + String.join(", ", behind) + " did not serve " +
                next.contentHash() + " within " + timeoutS + " s: see their event log (era_started, agent_stopped) " +
                "and 'mmx status'", MmxCommand.UNHEALTHY);
        }
        out.printf("active     plan %s in era %d on every node%s after %d ms%n", next.contentHash(), newEra,
            down.isEmpty() ? "" : " that answers", (System.nanoTime() - startNs) / 1_000_000);
        for (final String target : down)
        {
            out.println("join       " + target + ": start its node with --plan " + plan + " --join-era " + newEra +
                " (and its --state-dir: empty for a replacement host)");
        }
        out.flush();
        reportLinks(staying, stayingDocs, current, next, prepared, deadlineNs, out);
        return MmxCommand.OK;
    }

    /**
     * On memd (verbs), the sessions (queue pairs) the nodes that stay opened for the change (when prepared and at the switch)
     * and closed when their ended era retired (their {@code /status} {@code links}), against the ends
     * of the edges the change adds and removes at their processes: links follow the plan diff when the
     * two agree. Nodes on shm (no connections) report nothing, and neither does this.
     */
    private void reportLinks(final List<String> staying, final List<JsonNode> before, final Plan current,
        final Plan next, final long prepared, final long deadlineNs, final PrintWriter out) throws InterruptedException
    {
        final long openedBefore = sumLinks(before, "opened");
        final long closedBefore = sumLinks(before, "closed");
        if (sumLinks(before, "open") == 0)
        {
            return;
        }
        final java.util.Set<Integer> hosted = new java.util.HashSet<>();
        for (final int id : liveProcesses(before))
        {
            hosted.add(id);
        }
        final io.mmx.planner.change.GraphDiff diff = io.mmx.planner.change.GraphDiff.between(current.graph(),
            next.graph());
        final long added = endsAt(diff.added(), hosted);
        final long removed = endsAt(diff.removed(), hosted);
        List<JsonNode> now = statuses(staying);
        out.printf("links      the staying nodes opened %d %s for the change (%d before it was " +
            "proposed), for the %d edge ends it adds at their processes; the edges both plans have kept theirs%n",
            sumLinks(now, "opened") - openedBefore, linkKind(before), prepared, added);
        out.flush();
        // The ended era retires 2 s after the switch and closes the sessions of the removed edges.
        final long waitUntil = Math.min(deadlineNs, System.nanoTime() + 10_000_000_000L);
        while (sumLinks(now, "closed") - closedBefore < removed && System.nanoTime() < waitUntil)
        {
            Thread.sleep(100);
            now = statuses(staying);
        }
        out.printf("links      and closed %d when the ended era retired, for the %d edge ends the change removes " +
            "there%n", sumLinks(now, "closed") - closedBefore, removed);
        out.flush();
    }

    private List<JsonNode> statuses(final List<String> targets)
    {
        final List<JsonNode> docs = new ArrayList<>();
        for (final String target : targets)
        {
            final JsonNode doc = StatusCommand.fetch(http, mapper, target);
            if (doc != null)
            {
                docs.add(doc);
            }
        }
        return docs;
    }

    /** What the nodes' links are, as their {@code /status} names them: memd sessions or verbs queue pairs. */
    private static String linkKind(final List<JsonNode> docs)
    {
        return docs.isEmpty() ? "links" : docs.get(0).path("links").path("kind").asText("links");
    }

    private static long sumLinks(final List<JsonNode> docs, final String field)
    {
        long sum = 0;
        for (final JsonNode doc : docs)
        {
            sum += doc.path("links").path(field).asLong();
        }
        return sum;
    }

    /** The ends of {@code edges} at {@code hosted} processes. */
    private static long endsAt(final io.mmx.planner.change.EdgeList edges, final java.util.Set<Integer> hosted)
    {
        long ends = 0;
        for (int i = 0; i < edges.size(); i++)
        {
            ends += (hosted.contains(edges.u(i)) ? 1 : 0) + (hosted.contains(edges.v(i)) ? 1 : 0);
        }
        return ends;
    }

    /** The processes the answering nodes host (every one of them is up). */
    private static int[] liveProcesses(final List<JsonNode> docs)
    {
        final List<Integer> ids = new ArrayList<>();
        for (final JsonNode doc : docs)
        {
            for (final JsonNode p : doc.path("processes"))
            {
                ids.add(p.get("id").asInt());
            }
        }
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    private HttpResponse<String> get(final String target, final String path) throws IOException, InterruptedException
    {
        return http.send(HttpRequest.newBuilder(URI.create("http://" + target + path)).timeout(Duration.ofSeconds(5))
            .build(), HttpResponse.BodyHandlers.ofString());
    }

    private int refuse(final String why, final int code)
    {
        spec.commandLine().getOut().flush();
        spec.commandLine().getErr().println("mmx reconfigure: error: " + why);
        spec.commandLine().getErr().flush();
        return code;
    }
}
