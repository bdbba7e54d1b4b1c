package io.mmx.runtime.node;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The event line format is stable: fields in a fixed order, the message quoted and escaped. */
class EventLogTest
{
    /** What a log shipper would parse: logfmt with these fields in this order. */
    private static final Pattern LINE = Pattern.compile(
        "ts=\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d{3})?Z level=(INFO|WARN|ERROR) event=[a-z_]+" +
        "( process=\\d+)? msg=\"([^\"\\\\\\n]|\\\\.)*\"");

    @Test
    void fieldsComeInAFixedOrderAndTheMessageIsEscaped()
    {
        final Instant at = Instant.parse("2026-11-24T10:31:02.114567Z");
        assertEquals("ts=2026-11-24T10:31:02.114Z level=INFO event=snapshot_installed process=3 " +
            "msg=\"installed a peer's snapshot through slot 7\"",
            EventLog.line(at, EventLog.Level.INFO, "snapshot_installed", 3, "installed a peer's snapshot through slot 7"));
        final String node = EventLog.line(at, EventLog.Level.ERROR, "agent_failed", -1,
            "a \"quoted\" cause\non two lines \\ with a backslash");
        assertEquals("ts=2026-11-24T10:31:02.114Z level=ERROR event=agent_failed " +
            "msg=\"a \\\"quoted\\\" cause\\non two lines \\\\ with a backslash\"", node);
        assertTrue(LINE.matcher(node).matches(), node);
        assertTrue(!LINE.matcher("ts=2026-11-24T10:31:02.114Z level=INFO event=x msg=\"a \"bare\" quote\"").matches(),
            "the pattern itself refuses an unescaped quote");
    }
}
