package io.mmx.runtime.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The agreement line of {@code mmx status}: replicas compared at the highest applied index, the others behind. */
class StatusAgreementTest
{
    private final ObjectMapper mapper = new ObjectMapper();
    private final ReplicaAgreement replicas = new ReplicaAgreement();

    private void node(final String... processes) throws Exception
    {
        replicas.add(mapper, "{\"processes\":[" + String.join(",", processes) + "]}");
    }

    private static String p(final int id, final long index, final String digest)
    {
        return "{\"id\":" + id + ",\"appliedIndex\":" + index + ",\"stateDigest\":" +
            (digest == null ? "null" : "\"" + digest + "\"") + "}";
    }

    @Test
    void replicasAtOneIndexWithOneDigestAgree() throws Exception
    {
        node(p(0, 79, "00000000000000aa"), p(1, 79, "00000000000000aa"));
        node(p(2, 79, "00000000000000aa"));
        final ReplicaAgreement.Result r = replicas.result();
        assertEquals("replicas agree: 3 of 3 at index 79, digest 00000000000000aa", r.line());
        assertTrue(r.complete(3));
        assertFalse(r.complete(4), "a fourth replica did not report");
    }

    @Test
    void replicasBehindAreCountedNotCompared() throws Exception
    {
        node(p(0, 79, "00000000000000aa"), p(1, 71, "00000000000000bb"), p(2, 79, null));
        replicas.add(mapper, null);
        final ReplicaAgreement.Result r = replicas.result();
        assertEquals("replicas agree: 1 of 2 at index 79, digest 00000000000000aa; 1 behind; 1 report no " +
            "comparable state (no digest, or a gap in what they applied); 1 nodes did not answer", r.line());
        assertTrue(r.agree());
        assertFalse(r.complete(3));
    }

    @Test
    void twoDigestsAtOneIndexAreADisagreement() throws Exception
    {
        node(p(0, 79, "00000000000000aa"), p(2, 79, "00000000000000cc"));
        final ReplicaAgreement.Result r = replicas.result();
        assertFalse(r.agree());
        assertTrue(r.line().startsWith("replicas DISAGREE at index 79") && r.line().contains("00000000000000cc=[2]"),
            r.line());
        replicas.clear();
        assertEquals("replicas: none reports a state digest", replicas.result().line());
    }
}
