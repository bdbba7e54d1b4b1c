package io.mmx.aeron.transport;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcessDirectoryTest
{
    @Test
    void parsesRangesAndGroupsProcessesByEndpoint()
    {
        final ProcessDirectory directory = ProcessDirectory.parse("0-2@10.0.0.1:40001; 3@10.0.0.2:40001;4-5@10.0.0.1:40001");
        assertEquals(6, directory.processCount());
        assertEquals(2, directory.endpointCount());
        assertEquals(directory.endpointIndexOf(0), directory.endpointIndexOf(5));
        assertArrayEquals(new int[]{0, 1, 2, 4, 5}, directory.processesAt(directory.endpointIndexOf("10.0.0.1:40001")));
        assertEquals(-1, directory.endpointIndexOf("10.0.0.9:1"));
    }

    @Test
    void rejectsBadSpecsWithAMessageNamingTheEntry()
    {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ProcessDirectory.parse("0-3@host"))
            .getMessage().contains("host:port"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ProcessDirectory.parse("0-3@h:1;3@h:2"))
            .getMessage().contains("process 3 appears twice"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ProcessDirectory.parse("0@h:1;2@h:1"))
            .getMessage().contains("without gaps"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ProcessDirectory.parse("0@h:70000"))
            .getMessage().contains("1..65535"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ProcessDirectory.parse("x-y@h:1"))
            .getMessage().contains("bad id range"));
        assertThrows(IllegalArgumentException.class, () -> ProcessDirectory.parse(" "));
    }
}
