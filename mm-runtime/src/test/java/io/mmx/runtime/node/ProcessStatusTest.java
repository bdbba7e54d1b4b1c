package io.mmx.runtime.node;

import io.mmx.membership.Role;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one word users see for a process's role ({@code /status}, metrics, event and ROLE lines) is
 * made from the proposer's {@link Role} and the two flags, with the strings docs/node.md documents.
 */
class ProcessStatusTest
{
    @Test
    void recoveringOutranksBlockedWhichOutranksTheRole()
    {
        assertEquals("LEADER", status(Role.LEADER, false, false).shownRole());
        assertEquals("CANDIDATE", status(Role.CANDIDATE, false, false).shownRole());
        assertEquals("FOLLOWER", status(Role.FOLLOWER, false, false).shownRole());
        assertEquals("BLOCKED", status(Role.LEADER, false, true).shownRole());
        assertEquals("BLOCKED", status(Role.CANDIDATE, false, true).shownRole());
        assertEquals("RECOVERING", status(Role.FOLLOWER, true, false).shownRole());
        assertEquals("RECOVERING", status(Role.LEADER, true, true).shownRole());
    }

    @Test
    void onlyAnUnblockedReadyLeaderLeads()
    {
        assertTrue(status(Role.LEADER, false, false).leads());
        assertFalse(status(Role.LEADER, false, true).leads());
        assertFalse(status(Role.LEADER, true, false).leads());
        assertFalse(status(Role.CANDIDATE, false, false).leads());
        assertFalse(status(Role.FOLLOWER, false, false).leads());
    }

    @Test
    void jsonKeepsTheDocumentedFields()
    {
        assertEquals("{\"id\":0,\"role\":\"LEADER\",\"leader\":0,\"ballot\":32,\"reachableAcceptors\":32," +
            "\"neededAcceptors\":17,\"commitIndex\":1234,\"knownDecided\":1234,\"blocked\":false,\"qps\":5," +
            "\"suspectedNeighbours\":0,\"deadMembers\":0,\"regionServed\":true,\"appliedIndex\":9879," +
            "\"stateDigest\":\"5be0c3a4d61f2e07\"}",
            new ProcessStatus(0, Role.LEADER, false, false, 0, 32, 32, 17, 1234, 1234, 5, 0, 0, true, 9879,
                "5be0c3a4d61f2e07").toJson());
        final String blocked = status(Role.CANDIDATE, false, true).toJson();
        assertTrue(blocked.contains("\"role\":\"BLOCKED\"") && blocked.contains("\"blocked\":true"), blocked);
        final String recovering = status(Role.FOLLOWER, true, false).toJson();
        assertTrue(recovering.contains("\"role\":\"RECOVERING\"") && recovering.contains("\"blocked\":false") &&
            recovering.contains("\"stateDigest\":null"), recovering);
    }

    private static ProcessStatus status(final Role role, final boolean recovering, final boolean blocked)
    {
        return new ProcessStatus(3, role, recovering, blocked, 0, 7, 2, 4, 10, 10, 5, 0, 0, false, -1, null);
    }
}
