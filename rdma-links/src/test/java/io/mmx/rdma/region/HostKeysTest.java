package io.mmx.rdma.region;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A host's key file: only its processes' keys, written 0600, read back exactly, refused when damaged. */
class HostKeysTest
{
    private static final ClusterKey CLUSTER = ClusterKey.ofPassphrase("host-keys-test-cluster-key-0123456789");

    @Test
    void aWrittenFileReadsBackAsTheSameKeysAndHoldsNothingElse(@TempDir final Path dir) throws Exception
    {
        final HostKeys keys = CLUSTER.hostKeys(4, 5, 9);
        final Path file = dir.resolve("host.keys");
        keys.write(file, false);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        final HostKeys read = HostKeys.parse(Files.readAllBytes(file), file.toString());
        assertArrayEquals(new int[]{4, 5, 9}, read.processes());
        for (final int id : new int[]{4, 5, 9})
        {
            assertEquals(CLUSTER.processKey(id), read.processKey(id), "key of process " + id);
        }
        assertArrayEquals(CLUSTER.fingerprint(), read.fingerprint());
        assertArrayEquals(CLUSTER.transportKey(), read.transportKey());
        assertTrue(read.matchesFingerprint(CLUSTER.fingerprint()));
        assertFalse(read.holds(6));
        final IllegalArgumentException other = assertThrows(IllegalArgumentException.class, () -> read.processKey(6));
        assertTrue(other.getMessage().contains("not of process 6") && other.getMessage().contains("mmx keys derive"),
            other.getMessage());
        // Nothing in the file is the cluster key or another process's key.
        final String text = Files.readString(file);
        final HexFormat hex = HexFormat.of();
        assertFalse(text.contains(hex.formatHex("host-keys-test-cluster-key-0123456789".getBytes(StandardCharsets.UTF_8))));
        assertFalse(text.contains(hex.formatHex(CLUSTER.processKey(6).keyBytes())));
        assertTrue(HostKeys.isHostKeyFile(Files.readAllBytes(file)));
        assertFalse(HostKeys.isHostKeyFile(new byte[32]));
    }

    @Test
    void anExistingFileIsReplacedOnlyWhenAsked(@TempDir final Path dir) throws Exception
    {
        final Path file = dir.resolve("host.keys");
        CLUSTER.hostKeys(1).write(file, false);
        assertThrows(FileAlreadyExistsException.class, () -> CLUSTER.hostKeys(2).write(file, false));
        assertArrayEquals(new int[]{1}, HostKeys.parse(Files.readAllBytes(file), "f").processes());
        CLUSTER.hostKeys(2).write(file, true);
        assertArrayEquals(new int[]{2}, HostKeys.parse(Files.readAllBytes(file), "f").processes());
        try (var listing = Files.list(dir))
        {
            assertEquals(1, listing.count(), "no temporary file left behind");
        }
    }

    @Test
    void aDamagedFileIsRefusedNamingTheLine()
    {
        final String good = CLUSTER.hostKeys(3).format();
        final String[] damaged = {
            good.replace("process 3 ", "process x "),
            good.replace("transport ", "transport 00"),
            good.replace("fingerprint ", "fingerprint zz"),
            good + "process 3 " + "00".repeat(32) + "\n",
            good + "surprise\n",
            HostKeys.MAGIC + "\nprocess 3 " + "00".repeat(32) + "\n",
            "not a key file at all",
        };
        for (final String text : damaged)
        {
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> HostKeys.parse(text.getBytes(StandardCharsets.US_ASCII), "keys.txt"), text);
            assertTrue(ex.getMessage().startsWith("keys.txt") && ex.getMessage().contains("mmx keys derive"),
                ex.getMessage());
        }
    }
}
