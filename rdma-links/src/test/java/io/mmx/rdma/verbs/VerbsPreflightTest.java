package io.mmx.rdma.verbs;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The verbs start-up check: order of checks and one clear message per missing piece. */
class VerbsPreflightTest
{
    private record Fake(String disni, String ibverbs, List<String> devices) implements VerbsPreflight.Environment
    {
        @Override
        public String loadDisni()
        {
            return disni;
        }

        @Override
        public String loadIbverbs()
        {
            return ibverbs;
        }

        @Override
        public List<String> rdmaDevices()
        {
            return devices;
        }
    }

    @Test
    void libdisniIsCheckedFirst()
    {
        final VerbsPreflight.Result r = VerbsPreflight.check(
            new Fake("no disni in java.library.path: /usr/lib", "no libibverbs.so.1", List.of()));
        assertFalse(r.ok());
        assertEquals("libdisni", r.missing());
        assertTrue(r.message().contains("libdisni") && r.message().contains("Installing libdisni"), r.message());
        assertFalse(r.message().contains("RDMA device"), "one message, for the first missing piece only");
    }

    @Test
    void libdisniThatCannotResolveLibibverbsReportsLibibverbs()
    {
        final VerbsPreflight.Result r = VerbsPreflight.check(new Fake(
            "/usr/local/lib/libdisni.so: libibverbs.so.1: cannot open shared object file", null, List.of("mlx5_0")));
        assertEquals("libibverbs", r.missing());
        assertTrue(r.message().contains("apt-get install -y libibverbs1"), r.message());
    }

    @Test
    void libibverbsIsCheckedSecond()
    {
        final VerbsPreflight.Result r = VerbsPreflight.check(new Fake(null, "no libibverbs.so.1 in [/usr/lib]",
            List.of()));
        assertEquals("libibverbs", r.missing());
    }

    @Test
    void deviceIsCheckedLast()
    {
        final VerbsPreflight.Result r = VerbsPreflight.check(new Fake(null, null, List.of()));
        assertEquals("rdma-device", r.missing());
        assertTrue(r.message().contains("/sys/class/infiniband") && r.message().contains("rxe"), r.message());
    }

    @Test
    void everythingPresentIsReady()
    {
        final VerbsPreflight.Result r = VerbsPreflight.check(new Fake(null, null, List.of("mlx5_0")));
        assertTrue(r.ok());
        assertNull(r.missing());
        assertEquals(r, VerbsBackend.requireAvailable(r));
    }

    @Test
    void startRefusesWithOneClearMessageOnThisMachine()
    {
        final VerbsPreflight.Result r = VerbsPreflight.check();
        System.out.println("verbs preflight on this machine: " + r.message());
        if (r.ok())
        {
            return; // an RDMA machine: nothing to refuse
        }
        final VerbsUnavailableException ex = assertThrows(VerbsUnavailableException.class,
            VerbsBackend::requireAvailable);
        assertEquals(r.missing(), ex.missing());
        assertEquals(r.message(), ex.getMessage());
        assertNotNull(ex.missing());
    }

    @Test
    void disniInternalsThatTheBackendUsesExist() throws Exception
    {
        // Resolved without initialising DiSNI, which would try to load libdisni.
        assertEquals(2, DisniPostSend.resolve().length);
        assertNotNull(Class.forName(DisniPostSend.VERBS_CLASS, false, getClass().getClassLoader())
            .getDeclaredField(DisniPostSend.DISPATCHER_FIELD));
    }
}
