package io.mmx.runtime.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code mmx status}'s agreement line: replicas compared at the highest applied index, the others behind. */
class StatusAgreementTest
{
    private final TreeMap<Long, Map<String, List<Integer>>> digests = new TreeMap<>();

    private void report(final long index, final String digest, final int id)
    {
        digests.computeIfAbsent(index, k -> new TreeMap<>()).computeIfAbsent(digest, k -> new ArrayList<>()).add(id);
    }

    private String print(final boolean expected, final int uncomparable)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertEquals(expected, StatusCommand.printAgreement(digests, uncomparable,
            new PrintStream(bytes, true, StandardCharsets.UTF_8)));
        return bytes.toString(StandardCharsets.UTF_8).strip();
    }

    @Test
    void replicasAtOneIndexWithOneDigestAgree()
    {
        report(79, "00000000000000aa", 0);
        report(79, "00000000000000aa", 1);
        report(79, "00000000000000aa", 2);
        assertEquals("replicas agree: 3 of 3 at index 79, digest 00000000000000aa", print(true, 0));
    }

    @Test
    void replicasBehindAreCountedNotCompared()
    {
        report(79, "00000000000000aa", 0);
        report(71, "00000000000000bb", 1);
        assertEquals("replicas agree: 1 of 2 at index 79, digest 00000000000000aa; 1 behind; 1 report no " +
            "comparable state (no digest, or a gap in what they applied)", print(true, 1));
    }

    @Test
    void twoDigestsAtOneIndexAreADisagreementAndUnhealthy()
    {
        report(79, "00000000000000aa", 0);
        report(79, "00000000000000cc", 2);
        final String line = print(false, 0);
        assertTrue(line.startsWith("replicas DISAGREE at index 79") && line.contains("00000000000000cc=[2]"), line);
        digests.clear();
        assertFalse(print(true, 0).contains("agree"));
    }
}
