package io.mmx.perf.verbs;

import org.junit.jupiter.api.Test;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Counter parsing from fixture files shaped like mlx5's sysfs tree and ethtool -S output. */
class NicCountersTest
{
    static Path fixture(final String name) throws URISyntaxException
    {
        return Path.of(NicCountersTest.class.getResource("/verbs/" + name).toURI());
    }

    @Test
    void sysfsCountersOfEveryDeviceAndPortAreRead() throws Exception
    {
        final Map<String, Long> values = NicCounters.readSysfs(fixture("sysfs"));
        assertEquals(1000L, values.get("mlx5_0/1/rx_read_requests"));
        assertEquals(500L, values.get("mlx5_0/1/rx_atomic_requests"));
        assertEquals(123456L, values.get("mlx5_0/1/port_xmit_data"));
        assertEquals(20L, values.get("mlx5_1/1/rx_read_requests"));
        assertFalse(values.containsKey("mlx5_0/1/unreadable_text"), "non-numeric files are skipped");
        assertEquals(1020L, NicCounters.total(values, "rx_read_requests"), "summed over devices");
    }

    @Test
    void aMachineWithoutInfinibandHasNoCounters() throws Exception
    {
        assertTrue(NicCounters.readSysfs(Path.of("/nonexistent/class/infiniband")).isEmpty());
    }

    @Test
    void ethtoolOutputIsParsedAndDiffed() throws Exception
    {
        final Map<String, Long> before = NicCounters.parseEthtool(Files.readString(fixture("ethtool-before.txt")));
        final Map<String, Long> after = NicCounters.parseEthtool(Files.readString(fixture("ethtool-after.txt")));
        assertEquals(10L, before.get("ethtool/outbound_pci_stalled_rd_events"));
        assertFalse(before.containsKey("ethtool/NIC statistics"), "the heading is not a counter");
        final Map<String, Long> delta = NicCounters.delta(before, after);
        assertEquals(400L, delta.get("ethtool/outbound_pci_stalled_rd_events"));
        assertEquals(4000L, delta.get("ethtool/rx_packets"));
        assertFalse(delta.containsKey("ethtool/link_down_events_phy"), "a counter absent before has no delta");
    }
}
