package io.mmx.runtime.node;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.Executors;

/**
 * Serves {@code GET /status}: the plan hash, the JVM's pid and each hosted process's
 * {@link ProcessStatus}, as one JSON object. Read by {@code mmx status}, the ops health check and
 * supervisors. One daemon thread; reads only published snapshots, never the agent's state.
 *
 * <p>{@code POST /probe} submits one probe ({@link MmxNode#probe()}) and answers when it
 * committed: {@code 200 {"committed":true,"logIndex":I,"micros":T}}, or {@code 503
 * {"committed":false,"error":"..."}} when the node refused it or it did not commit within the
 * node's submit timeout. A probe changes no state machine; the node's submission bound limits
 * how many can be outstanding. The answer is sent from the node's completion, so a slow probe
 * never holds up {@code /status}.
 *
 * <p>{@code GET /metrics} answers the node's counters and histograms as Prometheus text
 * ({@link NodeMetrics}).
 *
 * <p>Live plan changes ({@code mmx reconfigure}, docs/protocol.md §8b): {@code GET /plan} answers the
 * plan in service as a plan file; {@code GET /plans?hash=sha256:...} answers {@code 200
 * {"held":true}} when the node holds that plan, {@code 404 {"held":false}} when not;
 * {@code POST /reconfigure?plan=sha256:...} proposes the change ({@link MmxNode#changePlan}) and
 * answers when it is decided, as {@code /probe} does, with {@code 409} when the node refused it
 * (a plan it does not hold, or the plan in service) and {@code 400} for a malformed hash.
 * {@code POST /prepare?plan=sha256:...} prepares the node for that change before it is proposed
 * ({@link MmxNode#preparePlan}: on memd, the sessions of the edges it adds are connected) and
 * answers {@code 200 {"prepared":true,"connected":N}} once they are, {@code 409} for a plan the node
 * does not hold or cannot run.
 */
public final class StatusServer implements AutoCloseable
{
    private static final String JSON = "application/json";

    private final HttpServer server;
    private final MmxNode node;

    private StatusServer(final HttpServer server, final MmxNode node)
    {
        this.server = server;
        this.node = node;
    }

    /**
     * Starts serving.
     *
     * @param address where to listen (port 0 picks one).
     * @param node    whose status to serve.
     */
    public static StatusServer start(final InetSocketAddress address, final MmxNode node)
    {
        return bind(address).serve(node);
    }

    /**
     * Takes the port before anything else starts, so that a port in use fails a node before it
     * has created regions or a media driver.
     *
     * @param address where to listen (port 0 picks one).
     * @return the bound port; {@link Bound#serve(MmxNode)} starts serving, {@link Bound#close()} lets it go.
     * @throws UncheckedIOException naming the address and the fix when it cannot be bound.
     */
    public static Bound bind(final InetSocketAddress address)
    {
        try
        {
            return new Bound(HttpServer.create(address, 16));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot serve status on " + address.getHostString() + ":" +
                address.getPort() + ": " + ex.getMessage() + "; pick a free port with --status-listen HOST:PORT", ex);
        }
    }

    /** A bound status port that serves nothing yet. */
    public static final class Bound implements AutoCloseable
    {
        private final HttpServer server;

        private Bound(final HttpServer server)
        {
            this.server = server;
        }

        /** Starts serving {@code node}'s status and probes on this port. */
        public StatusServer serve(final MmxNode node)
        {
            final StatusServer s = new StatusServer(server, node);
            server.createContext("/status", s::handle);
            server.createContext("/probe", s::handleProbe);
            server.createContext("/metrics", s::handleMetrics);
            server.createContext("/plan", s::handlePlan);
            server.createContext("/plans", s::handlePlans);
            server.createContext("/reconfigure", s::handleReconfigure);
            server.createContext("/prepare", s::handlePrepare);
            server.setExecutor(Executors.newSingleThreadExecutor(r ->
            {
                final Thread t = new Thread(r, "mmx-status");
                t.setDaemon(true);
                return t;
            }));
            server.start();
            return s;
        }

        @Override
        public void close()
        {
            server.stop(0);
        }
    }

    /** The bound address. */
    public InetSocketAddress address()
    {
        return server.getAddress();
    }

    /** The JSON document {@code /status} returns. */
    public static String json(final MmxNode node)
    {
        final List<ProcessStatus> statuses = node.status();
        final StringJoiner processes = new StringJoiner(",", "[", "]");
        for (final ProcessStatus s : statuses)
        {
            processes.add(s.toJson());
        }
        final Throwable failure = node.failure();
        final String failed = failure == null ? "null" : "\"" + String.valueOf(failure).replace("\\", "\\\\")
            .replace("\"", "\\\"").replace("\n", " ") + "\"";
        return "{\"plan\":\"" + node.planHash() + "\",\"era\":" + node.era() + ",\"pid\":" + ProcessHandle.current().pid() +
            ",\"failed\":" + failed + ",\"left\":" + node.left() +
            ",\"pending\":" + node.pending() + ",\"links\":" + node.linksJson() + ",\"frames\":" +
            node.transportCountersJson() +
            ",\"clientFrames\":" + node.clientCountersJson() + ",\"processes\":" + processes + "}";
    }

    private void handle(final HttpExchange exchange) throws IOException
    {
        if (!"GET".equals(exchange.getRequestMethod()))
        {
            exchange.getResponseHeaders().set("Allow", "GET");
            exchange.sendResponseHeaders(405, -1);
            exchange.close();
            return;
        }
        respond(exchange, 200, JSON, json(node));
    }

    private void handleMetrics(final HttpExchange exchange) throws IOException
    {
        if (!"GET".equals(exchange.getRequestMethod()))
        {
            exchange.getResponseHeaders().set("Allow", "GET");
            exchange.sendResponseHeaders(405, -1);
            exchange.close();
            return;
        }
        respond(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", node.metricsText());
    }

    private void handlePlan(final HttpExchange exchange) throws IOException
    {
        if (!allowed(exchange, "GET"))
        {
            return;
        }
        final java.io.StringWriter text = new java.io.StringWriter();
        io.mmx.planner.plan.PlanFile.write(node.plan(), text);
        respond(exchange, 200, JSON, text.toString());
    }

    private void handlePlans(final HttpExchange exchange) throws IOException
    {
        if (!allowed(exchange, "GET"))
        {
            return;
        }
        final String hash = queryParameter(exchange, "hash");
        try
        {
            final boolean held = hash != null && node.heldPlan(hash) != null;
            respond(exchange, held ? 200 : 404, JSON, "{\"held\":" + held + "}");
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            respond(exchange, 400, JSON, error(ex.getMessage()));
        }
    }

    private void handleReconfigure(final HttpExchange exchange) throws IOException
    {
        if (!allowed(exchange, "POST"))
        {
            return;
        }
        final String hash = planParameter(exchange, "/reconfigure");
        if (hash == null)
        {
            return;
        }
        answerWhenDecided(exchange, node.changePlan(hash), true);
    }

    private void handlePrepare(final HttpExchange exchange) throws IOException
    {
        if (!allowed(exchange, "POST"))
        {
            return;
        }
        final String hash = planParameter(exchange, "/prepare");
        if (hash == null)
        {
            return;
        }
        node.preparePlan(hash).whenComplete((connected, failure) ->
        {
            final Throwable cause = failure instanceof java.util.concurrent.CompletionException &&
                failure != null && failure.getCause() != null ? failure.getCause() : failure;
            try
            {
                if (cause == null)
                {
                    respond(exchange, 200, JSON, "{\"prepared\":true,\"connected\":" + connected + "}");
                }
                else
                {
                    respond(exchange, cause instanceof SubmitRefusedException ? 409 : 503, JSON,
                        "{\"prepared\":false,\"error\":\"" + String.valueOf(cause.getMessage())
                        .replace("\\", "\\\\").replace("\"", "\\\"") + "\"}");
                }
            }
            catch (final IOException ignored)
            {
                // The caller went away; nothing to tell it.
            }
        });
    }

    /** The request's {@code plan} parameter, a content hash; null, answered 400, when missing or malformed. */
    private static String planParameter(final HttpExchange exchange, final String path) throws IOException
    {
        final String hash = queryParameter(exchange, "plan");
        try
        {
            io.mmx.planner.plan.PlanDigest.parse(hash == null ? "" : hash);
            return hash;
        }
        catch (final IllegalArgumentException ex)
        {
            respond(exchange, 400, JSON, error("give the new plan's content hash: POST " + path +
                "?plan=sha256:...; " + ex.getMessage()));
            return null;
        }
    }

    private static boolean allowed(final HttpExchange exchange, final String method) throws IOException
    {
        if (method.equals(exchange.getRequestMethod()))
        {
            return true;
        }
        exchange.getResponseHeaders().set("Allow", method);
        exchange.sendResponseHeaders(405, -1);
        exchange.close();
        return false;
    }

    private static String queryParameter(final HttpExchange exchange, final String name)
    {
        final String query = exchange.getRequestURI().getRawQuery();
        if (query == null)
        {
            return null;
        }
        for (final String pair : query.split("&"))
        {
            final int eq = pair.indexOf('=');
            if (eq > 0 && pair.substring(0, eq).equals(name))
            {
                return java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    private static String error(final String message)
    {
        return "{\"committed\":false,\"error\":\"" + String.valueOf(message).replace("\\", "\\\\")
            .replace("\"", "\\\"") + "\"}";
    }

    private void handleProbe(final HttpExchange exchange) throws IOException
    {
        if (!allowed(exchange, "POST"))
        {
            return;
        }
        answerWhenDecided(exchange, node.probe(), false);
    }

    /**
     * Answers once {@code decided} completes: 200 with its log index, 503 when it failed, or, when
     * {@code refusalIsConflict}, 409 for a refusal the request itself caused.
     */
    private static void answerWhenDecided(final HttpExchange exchange, final java.util.concurrent.CompletableFuture<Long>
        decided, final boolean refusalIsConflict)
    {
        final long startNs = System.nanoTime();
        decided.whenComplete((logIndex, failure) ->
        {
            final int code;
            final String json;
            if (failure == null)
            {
                code = 200;
                json = "{\"committed\":true,\"logIndex\":" + logIndex + ",\"micros\":" +
                    (System.nanoTime() - startNs) / 1000 + "}";
            }
            else
            {
                final Throwable cause = failure instanceof java.util.concurrent.CompletionException &&
                    failure.getCause() != null ? failure.getCause() : failure;
                code = refusalIsConflict && cause instanceof SubmitRefusedException ? 409 : 503;
                json = error(cause.getMessage());
            }
            try
            {
                respond(exchange, code, JSON, json);
            }
            catch (final IOException ignored)
            {
                // The prober went away; nothing to tell it.
            }
        });
    }

    private static void respond(final HttpExchange exchange, final int code, final String contentType,
        final String text) throws IOException
    {
        try (exchange)
        {
            final byte[] body = text.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", contentType);
            exchange.sendResponseHeaders(code, body.length);
            try (OutputStream out = exchange.getResponseBody())
            {
                out.write(body);
            }
        }
    }

    @Override
    public void close()
    {
        server.stop(0);
    }
}
