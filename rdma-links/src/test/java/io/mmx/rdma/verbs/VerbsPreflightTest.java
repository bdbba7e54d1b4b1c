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
    // A trimmed `ibv_devinfo -v` of a device with atomics, as rdma-core's devinfo prints it.
    static final String HCA_DEVINFO = "hca_id:\tmlx5_0\n\ttransport:\t\t\tInfiniBand (0)\n" +
        "\tmax_qp:\t\t\t\t131072\n\tatomic_cap:\t\t\tATOMIC_HCA (1)\n\tmax_ee_rd_atom:\t\t\t0\n";

    private record Fake(String disni, String ibverbs, List<String> devices, String devinfo)
        implements VerbsPreflight.Environment
    {
        Fake(final String disni, final String ibverbs, final List<String> devices)
        {
            this(disni, ibverbs, devices, HCA_DEVINFO);
        }

        @Override
        public String deviceInfo(final String device)
        {
            return devinfo;
        }

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
    void aDeviceWithoutTheAtomicCapabilityIsRefusedByName()
    {
        final VerbsPreflight.Result none = VerbsPreflight.check(new Fake(null, null, List.of("rxe0"),
            HCA_DEVINFO.replace("ATOMIC_HCA (1)", "ATOMIC_NONE (0)")));
        assertFalse(none.ok());
        assertEquals("atomic-capability", none.missing());
        assertTrue(none.message().contains("rxe0") && none.message().contains("IBV_ATOMIC_NONE") &&
            none.message().contains("needs IBV_ATOMIC_HCA"), none.message());

        final VerbsPreflight.Result glob = VerbsPreflight.check(new Fake(null, null, List.of("mlx5_0"),
            HCA_DEVINFO.replace("ATOMIC_HCA (1)", "ATOMIC_GLOB (2)")));
        assertTrue(glob.ok(), glob.message());

        final VerbsPreflight.Result silent = VerbsPreflight.check(new Fake(null, null, List.of("mlx5_0"), "hca_id: mlx5_0\n"));
        assertEquals("atomic-capability", silent.missing());
        assertTrue(silent.message().contains("no atomic_cap line"), silent.message());

        final VerbsPreflight.Result noTool = VerbsPreflight.check(new Fake(null, null, List.of("mlx5_0"), null));
        assertEquals("ibv_devinfo", noTool.missing());
        assertTrue(noTool.message().contains("ibverbs-utils"), noTool.message());

        assertEquals(VerbsPreflight.IBV_ATOMIC_HCA, VerbsPreflight.atomicCap(HCA_DEVINFO));
        assertEquals(-1, VerbsPreflight.atomicCap("atomic_cap: (x)"));
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
