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
 */
public final class StatusServer implements AutoCloseable
{
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
        final HttpServer server;
        try
        {
            server = HttpServer.create(address, 16);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot serve status on " + address + ": " + ex.getMessage() +
                "; pick a free port with --status-listen HOST:PORT", ex);
        }
        final StatusServer s = new StatusServer(server, node);
        server.createContext("/status", s::handle);
        server.setExecutor(Executors.newSingleThreadExecutor(r ->
        {
            final Thread t = new Thread(r, "mmx-status");
            t.setDaemon(true);
            return t;
        }));
        server.start();
        return s;
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
            ",\"pending\":" + node.pending() + ",\"frames\":" + node.transportCountersJson() + ",\"processes\":" + processes + "}";
    }

    private void handle(final HttpExchange exchange) throws IOException
    {
        try (exchange)
        {
            if (!"GET".equals(exchange.getRequestMethod()))
            {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            final byte[] body = json(node).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
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
