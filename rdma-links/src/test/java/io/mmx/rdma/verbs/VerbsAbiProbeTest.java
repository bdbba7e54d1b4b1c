package io.mmx.rdma.verbs;

import io.mmx.rdma.fabric.OpType;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Proves the verbs work-request layout against the system's libibverbs: compiles a C probe
 * with gcc against {@code <infiniband/verbs.h>}, then checks every {@link VerbsAbi} constant and
 * the exact bytes {@link SendWorkRequestEncoder} produces for CAS, fetch-and-add, read and write.
 */
class VerbsAbiProbeTest
{
    private static final long FAKE_BASE = 0x00007f0000001000L;
    private static final Path HEADER = Path.of("/usr/include/infiniband/verbs.h");
    private static final Map<String, String> PROBE = new HashMap<>();

    @BeforeAll
    static void runProbe() throws Exception
    {
        Assumptions.assumeTrue(Files.exists(HEADER), "skipped: " + HEADER + " is missing; install it with " +
            "`apt-get install -y libibverbs-dev` (Debian/Ubuntu) or `dnf install rdma-core-devel` (RHEL)");
        final Path dir = Files.createTempDirectory("mmx-ibv-probe-");
        try
        {
            final Path source = dir.resolve("ibv_send_wr_probe.c");
            try (InputStream in = VerbsAbiProbeTest.class.getResourceAsStream("/verbs/ibv_send_wr_probe.c"))
            {
                Files.copy(in, source);
            }
            final Path binary = dir.resolve("probe");
            final Process gcc;
            try
            {
                gcc = new ProcessBuilder("gcc", "-std=c11", "-Wall", "-Werror", "-o", binary.toString(),
                    source.toString()).redirectErrorStream(true).start();
            }
            catch (final java.io.IOException ex)
            {
                Assumptions.abort("skipped: gcc is not installed; install it with `apt-get install -y gcc`");
                return;
            }
            final String compileOutput = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(gcc.waitFor(60, TimeUnit.SECONDS), "gcc did not finish within 60 s");
            assertEquals(0, gcc.exitValue(), "the probe does not compile against " + HEADER + ":\n" + compileOutput);
            final Process probe = new ProcessBuilder(binary.toString()).redirectErrorStream(true).start();
            final String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertTrue(probe.waitFor(10, TimeUnit.SECONDS));
            assertEquals(0, probe.exitValue(), output);
            for (final String line : output.split("\n"))
            {
                final String[] parts = line.strip().split(" ");
                PROBE.put(parts[0], parts[1]);
            }
        }
        finally
        {
            IoUtil.delete(dir.toFile(), true);
        }
    }

    @Test
    void everyLayoutConstantMatchesTheSystemHeader() throws Exception
    {
        int checked = 0;
        for (final Map.Entry<String, String> e : PROBE.entrySet())
        {
            if (e.getKey().startsWith("BYTES_"))
            {
                continue;
            }
            final int javaValue = VerbsAbi.class.getField(e.getKey()).getInt(null);
            assertEquals(Integer.parseInt(e.getValue()), javaValue, "VerbsAbi." + e.getKey() + " differs from " + HEADER);
            checked++;
        }
        assertEquals(32, checked, "the probe reports 32 constants: " + PROBE.keySet());
        assertEquals(VerbsAbi.IBV_ACCESS_REMOTE_ATOMIC, VerbsAbi.REGION_ACCESS & VerbsAbi.IBV_ACCESS_REMOTE_ATOMIC,
            "regions must be registered with REMOTE_ATOMIC");
    }

    @Test
    void encodedCompareAndSwapHasTheBytesOfTheCStruct()
    {
        assertBytes("BYTES_CAS", OpType.COMPARE_AND_SWAP, 0x4142434445464748L, 0x5152535455565758L, 8);
    }

    @Test
    void encodedFetchAndAddHasTheBytesOfTheCStruct()
    {
        assertBytes("BYTES_FAA", OpType.FETCH_AND_ADD, 0x4142434445464748L, 0, 8);
    }

    @Test
    void encodedReadAndWriteHaveTheBytesOfTheCStruct()
    {
        assertBytes("BYTES_READ", OpType.READ_BULK, 0, 0, 4096);
        assertBytes("BYTES_WRITE", OpType.WRITE, 0, 0, 8);
    }

    private static void assertBytes(
        final String probeName, final OpType type, final long compareAdd, final long swap, final int length)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(4096, 64));
        buffer.setMemory(0, buffer.capacity(), (byte)0xEE); // stale bytes must all be overwritten
        final int index = 256;
        final long wr = SendWorkRequestEncoder.encode(buffer, index, 0x0102030405060708L, type,
            0x1112131415161718L, length, 0x21222324, 0x3132333435363738L, 0x61626364, compareAdd, swap);
        assertEquals(buffer.addressOffset() + index, wr);
        assertEquals(wr + VerbsAbi.SEND_WR_SIZE, buffer.getLong(index + VerbsAbi.SG_LIST_OFFSET),
            "sg_list must point at the entry written right after the work request");
        // The C probe cannot know our address; put its fake base in before comparing every byte.
        buffer.putLong(index + VerbsAbi.SG_LIST_OFFSET, FAKE_BASE + VerbsAbi.SEND_WR_SIZE);
        final byte[] encoded = new byte[SendWorkRequestEncoder.ENCODED_LENGTH];
        buffer.getBytes(index, encoded);
        assertEquals(PROBE.get(probeName), HexFormat.of().formatHex(encoded),
            probeName + ": the bytes handed to ibv_post_send differ from the C struct filled by field name");
    }

    @Test
    void probeCoversEveryOperationTheBackendPosts()
    {
        for (final OpType type : List.of(OpType.values()))
        {
            final int opcode = SendWorkRequestEncoder.opcode(type);
            assertTrue(opcode == VerbsAbi.IBV_WR_RDMA_READ || opcode == VerbsAbi.IBV_WR_RDMA_WRITE ||
                opcode == VerbsAbi.IBV_WR_ATOMIC_CMP_AND_SWP || opcode == VerbsAbi.IBV_WR_ATOMIC_FETCH_AND_ADD, type + "");
        }
    }
}
