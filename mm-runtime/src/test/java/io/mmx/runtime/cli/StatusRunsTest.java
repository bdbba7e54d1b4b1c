package io.mmx.runtime.cli;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@code mmx status} writes a node's roles and QPs in runs, so a node of hundreds of processes fits a line. */
class StatusRunsTest
{
    @Test
    void runsOfThreeOrMoreAreWrittenOnceWithTheirLength()
    {
        final List<String> roles = new ArrayList<>(List.of("L"));
        roles.addAll(Collections.nCopies(255, "F"));
        assertEquals("L,Fx255", StatusCommand.runs(roles));
        assertEquals("9x256", StatusCommand.runs(Collections.nCopies(256, "9")));
    }

    @Test
    void shortRunsAreListed()
    {
        assertEquals("L,F,F", StatusCommand.runs(List.of("L", "F", "F")));
        assertEquals("F,B,Fx4,4", StatusCommand.runs(List.of("F", "B", "F", "F", "F", "F", "4")));
        assertEquals("", StatusCommand.runs(List.of()));
    }
}
