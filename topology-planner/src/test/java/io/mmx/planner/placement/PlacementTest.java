package io.mmx.planner.placement;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PlacementTest
{
    private static void assertRejected(final Runnable make, final String... phrases)
    {
        final IllegalArgumentException error = assertThrows(IllegalArgumentException.class, make::run);
        for (final String phrase : phrases)
        {
            assertTrue(error.getMessage().contains(phrase), () -> "'" + phrase + "' in: " + error.getMessage());
        }
    }

    @Test
    void contiguousFillsHostsThenRacksInIdOrder()
    {
        // 3 racks × 2 hosts × 4 processes = 24 slots, 20 used: host 4 holds 16..19, host 5 is empty.
        final Placement placement = Placement.contiguous(20, 3, 2, 4);
        assertEquals(20, placement.processes());
        assertEquals(6, placement.hosts());
        assertEquals(2, placement.hostOf(9));
        assertEquals(1, placement.rackOf(9));
        assertEquals(2, placement.rackOf(19));
        assertArrayEquals(new int[] {8, 9, 10, 11}, placement.processesOnHost(2));
        assertArrayEquals(new int[] {16, 17, 18, 19}, placement.processesOnHost(4));
        assertArrayEquals(new int[0], placement.processesOnHost(5));
        assertEquals(2, placement.rackOfHost(5));
        assertEquals(0, placement.rackLabels()[7]);
        assertEquals(1, placement.hostLabels()[7]);
    }

    @Test
    void labelsAreCopies()
    {
        final Placement placement = Placement.contiguous(8, 2, 2, 2);
        placement.rackLabels()[0] = 99;
        placement.hostLabels()[0] = 99;
        assertEquals(0, placement.rackOf(0));
        assertEquals(0, placement.hostOf(0));
    }

    @Test
    void rejectsMoreProcessesThanSlotsNamingBothNumbers()
    {
        assertRejected(() -> Placement.contiguous(5000, 2, 4, 8), "n = 5000", "= 64 slots",
            "raise racks, hosts per rack or processes per host");
        assertRejected(() -> Placement.contiguous(10, 0, 4, 8), "at least 1");
    }

    @Test
    void explicitAcceptsAnyConsistentMapping()
    {
        final Placement placement =
            Placement.explicit(2, 2, 2, new int[] {1, 0, 1, 0}, new int[] {3, 0, 3, 1});
        assertEquals(1, placement.rackOf(0));
        assertEquals(3, placement.hostOf(2));
        assertArrayEquals(new int[] {0, 2}, placement.processesOnHost(3));
        assertEquals(-1, placement.rackOfHost(2));
        assertEquals(placement, Placement.explicit(2, 2, 2, new int[] {1, 0, 1, 0}, new int[] {3, 0, 3, 1}));
        assertEquals(Placement.contiguous(4, 2, 1, 2),
            Placement.explicit(2, 1, 2, new int[] {0, 0, 1, 1}, new int[] {0, 0, 1, 1}));
    }

    @Test
    void explicitRejectsInconsistentMappingsNamingTheFix()
    {
        assertRejected(() -> Placement.explicit(2, 2, 2, new int[] {0, 1}, new int[] {0, 0}),
            "host 0", "a host belongs to exactly one rack");
        assertRejected(() -> Placement.explicit(2, 2, 1, new int[] {0, 0}, new int[] {0, 0}),
            "host 0 holds more than 1", "raise processes per host");
        assertRejected(() -> Placement.explicit(2, 1, 4, new int[] {0, 0}, new int[] {0, 1}),
            "rack 0 uses more than 1 hosts", "raise hosts per rack");
        assertRejected(() -> Placement.explicit(2, 2, 2, new int[] {2}, new int[] {0}),
            "process 0 is on rack 2", "below the rack count 2");
        assertRejected(() -> Placement.explicit(2, 2, 2, new int[] {0}, new int[] {4}),
            "process 0 is on host 4");
        assertRejected(() -> Placement.explicit(2, 2, 2, new int[] {0, 0}, new int[] {0}),
            "give both for every process");
    }
}
