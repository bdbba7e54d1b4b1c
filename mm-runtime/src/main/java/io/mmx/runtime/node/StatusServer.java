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
        return "{\"plan\":\"" + node.planHash() + "\",\"pid\":" + ProcessHandle.current().pid() +
            ",\"failed\":" + failed +
            ",\"pending\":" + node.pending() + ",\"frames\":" + node.transportCountersJson() +
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

    private void handleProbe(final HttpExchange exchange) throws IOException
    {
        if (!"POST".equals(exchange.getRequestMethod()))
        {
            exchange.getResponseHeaders().set("Allow", "POST");
            exchange.sendResponseHeaders(405, -1);
            exchange.close();
            return;
        }
        final long startNs = System.nanoTime();
        node.probe().whenComplete((logIndex, failure) ->
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
                code = 503;
                json = "{\"committed\":false,\"error\":\"" + String.valueOf(cause.getMessage())
                    .replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
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
