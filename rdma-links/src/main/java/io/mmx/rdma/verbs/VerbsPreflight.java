package io.mmx.rdma.verbs;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Checks, in order, what the verbs backend needs before it touches DiSNI: the libdisni JNI
 * library, libibverbs, at least one RDMA device, and on every device the atomic capability the
 * backend relies on. The first thing missing is reported in one sentence that names it and how
 * to install it; later checks are not run.
 *
 * <p>Atomics: CAS and fetch-and-add run as NIC atomics on region words that the owner's host also
 * reads, and the link takes the returned old word in host byte order; both hold only on a device
 * whose {@code atomic_cap} is {@code IBV_ATOMIC_HCA} (atomic among all QPs of the device) or
 * {@code IBV_ATOMIC_GLOB}. DiSNI 2.1 has no {@code ibv_query_device}, so the capability is read
 * from {@code ibv_devinfo -v} (ibverbs-utils).
 */
public final class VerbsPreflight
{
    /** Where the kernel lists RDMA devices. */
    public static final Path SYS_CLASS_INFINIBAND = Path.of("/sys/class/infiniband");

    private static final String IBVERBS_SONAME = "libibverbs.so.1";
    private static final List<String> SYSTEM_LIBRARY_DIRS = List.of(
        "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib/aarch64-linux-gnu",
        "/usr/lib64", "/lib64", "/usr/local/lib", "/usr/lib", "/lib");

    private VerbsPreflight()
    {
    }

    /** What the checks look at; replaced in tests. */
    public interface Environment
    {
        /** Loads libdisni; null on success, else the loader's error text. */
        String loadDisni();

        /** Loads libibverbs; null on success, else where it was looked for. */
        String loadIbverbs();

        /** Names of the RDMA devices present. */
        List<String> rdmaDevices();

        /** The output of {@code ibv_devinfo -v -d DEVICE}, or null when it cannot be run. */
        String deviceInfo(String device);
    }

    /** {@code enum ibv_atomic_cap}: no atomics. */
    public static final int IBV_ATOMIC_NONE = 0;
    /** {@code enum ibv_atomic_cap}: atomic among the QPs of this device. */
    public static final int IBV_ATOMIC_HCA = 1;
    /** {@code enum ibv_atomic_cap}: atomic with the CPU and other devices too. */
    public static final int IBV_ATOMIC_GLOB = 2;

    private static final java.util.regex.Pattern ATOMIC_CAP =
        java.util.regex.Pattern.compile("(?m)^\\s*atomic_cap:\\s*(\\S+)\\s*\\((\\d+)\\)");

    /**
     * The {@code atomic_cap} value in {@code ibv_devinfo -v} output (a line like
     * {@code atomic_cap: ATOMIC_HCA (1)}), or -1 if there is none.
     */
    public static int atomicCap(final String deviceInfo)
    {
        final java.util.regex.Matcher m = ATOMIC_CAP.matcher(deviceInfo);
        return m.find() ? Integer.parseInt(m.group(2)) : -1;
    }

    /**
     * The verdict.
     *
     * @param ok      true if the verbs backend can start.
     * @param missing "libdisni", "libibverbs", "rdma-device" or null.
     * @param message one sentence: what is missing and how to install it, or what was found.
     */
    public record Result(boolean ok, String missing, String message)
    {
    }

    /** Checks this machine. */
    public static Result check()
    {
        return check(new SystemEnvironment());
    }

    /** Checks {@code environment}, stopping at the first thing missing. */
    public static Result check(final Environment environment)
    {
        final String disniError = environment.loadDisni();
        if (disniError != null)
        {
            if (disniError.contains("libibverbs"))
            {
                // libdisni was found, but the dynamic linker could not resolve its libibverbs dependency.
                return missingIbverbs("libdisni is installed but cannot load " + IBVERBS_SONAME + " (" + disniError + ")");
            }
            return new Result(false, "libdisni", "the verbs backend needs libdisni, the native part of DiSNI 2.1, " +
                "and the JVM cannot load it (" + disniError + "): build and install it from DiSNI's libdisni " +
                "directory as docs/memory-fabric.md 'Installing libdisni' describes, then start the JVM with " +
                "-Djava.library.path=/usr/local/lib (java.library.path is now " +
                System.getProperty("java.library.path") + ")");
        }
        final String ibverbsError = environment.loadIbverbs();
        if (ibverbsError != null)
        {
            return missingIbverbs(ibverbsError);
        }
        final List<String> devices = environment.rdmaDevices();
        if (devices.isEmpty())
        {
            return new Result(false, "rdma-device", "the verbs backend needs an RDMA device and " +
                SYS_CLASS_INFINIBAND + " lists none: run on a host with an InfiniBand, RoCE or iWARP NIC, or for " +
                "testing create a software device with `modprobe rdma_rxe && rdma link add rxe0 type rxe netdev " +
                "eth0`; hosts without RDMA use the memd backend");
        }
        for (final String device : devices)
        {
            final String info = environment.deviceInfo(device);
            if (info == null)
            {
                return new Result(false, "ibv_devinfo", "the verbs backend reads the atomic capability of RDMA " +
                    "device " + device + " with `ibv_devinfo -v` and cannot run it: install it with `apt-get install " +
                    "-y ibverbs-utils` (Debian/Ubuntu) or `dnf install -y libibverbs-utils` (RHEL/Fedora)");
            }
            final int cap = atomicCap(info);
            if (cap != IBV_ATOMIC_HCA && cap != IBV_ATOMIC_GLOB)
            {
                return new Result(false, "atomic-capability", "RDMA device " + device + " reports atomic_cap " +
                    (cap < 0 ? "nothing (no atomic_cap line in `ibv_devinfo -v -d " + device + "`)" : cap +
                    (cap == IBV_ATOMIC_NONE ? " (IBV_ATOMIC_NONE)" : "")) + ", and the verbs backend needs " +
                    "IBV_ATOMIC_HCA or IBV_ATOMIC_GLOB: its CAS and fetch-and-add are NIC atomics that must be atomic " +
                    "among all queue pairs of the device and return the old word in host byte order; use a NIC with " +
                    "that capability (or remove this device), or the memd backend");
            }
        }
        return new Result(true, null, "verbs backend ready: libdisni, libibverbs and RDMA device(s) " + devices +
            " with IBV_ATOMIC_HCA or better");
    }

    private static Result missingIbverbs(final String detail)
    {
        return new Result(false, "libibverbs", "the verbs backend needs " + IBVERBS_SONAME + " and it is missing (" +
            detail + "): install it with `apt-get install -y libibverbs1 ibverbs-providers` (Debian/Ubuntu) or " +
            "`dnf install -y libibverbs` (RHEL/Fedora)");
    }

    /** The real machine. */
    static final class SystemEnvironment implements Environment
    {
        @Override
        public String loadDisni()
        {
            try
            {
                System.loadLibrary("disni");
                return null;
            }
            catch (final UnsatisfiedLinkError | SecurityException ex)
            {
                return ex.getMessage();
            }
        }

        @Override
        public String loadIbverbs()
        {
            final Set<String> dirs = new LinkedHashSet<>();
            addPath(dirs, System.getenv("LD_LIBRARY_PATH"));
            addPath(dirs, System.getProperty("java.library.path"));
            dirs.addAll(SYSTEM_LIBRARY_DIRS);
            for (final String dir : dirs)
            {
                final Path candidate = Path.of(dir, IBVERBS_SONAME);
                if (Files.isReadable(candidate))
                {
                    try
                    {
                        System.load(candidate.toAbsolutePath().toString());
                        return null;
                    }
                    catch (final UnsatisfiedLinkError ex)
                    {
                        return candidate + " exists but does not load: " + ex.getMessage();
                    }
                }
            }
            return "no " + IBVERBS_SONAME + " in " + dirs;
        }

        @Override
        public List<String> rdmaDevices()
        {
            final List<String> devices = new ArrayList<>();
            if (Files.isDirectory(SYS_CLASS_INFINIBAND))
            {
                try (Stream<Path> entries = Files.list(SYS_CLASS_INFINIBAND))
                {
                    entries.forEach((p) -> devices.add(p.getFileName().toString()));
                }
                catch (final java.io.IOException ex)
                {
                    return devices;
                }
            }
            return devices;
        }

        @Override
        public String deviceInfo(final String device)
        {
            try
            {
                final Process p = new ProcessBuilder("ibv_devinfo", "-v", "-d", device).redirectErrorStream(true).start();
                final String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                if (!p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS))
                {
                    p.destroyForcibly();
                    return null;
                }
                return p.exitValue() == 0 ? out : null;
            }
            catch (final java.io.IOException ex)
            {
                return null;
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        private static void addPath(final Set<String> dirs, final String path)
        {
            if (path != null)
            {
                for (final String dir : path.split(File.pathSeparator))
                {
                    if (!dir.isEmpty())
                    {
                        dirs.add(dir);
                    }
                }
            }
        }
    }
}
