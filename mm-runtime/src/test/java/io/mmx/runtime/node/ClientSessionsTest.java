package io.mmx.runtime.node;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Clients' sessions from the log alone: fragments in any order and twice, stale commands, snapshots mid-way. */
class ClientSessionsTest
{
    private static final int WORDS = Commands.proposalWords(32);
    private static final int D = Commands.fragmentBytes(WORDS);
    private static final int WIDE = Commands.proposalWords(1024);

    @Test
    void aCommandLoggedInShuffledFragmentsEachTwiceAppliesOnceWhole()
    {
        final long seed = 3;
        System.out.println("ClientSessionsTest seed " + seed);
        final Random random = new Random(seed);
        final byte[] command = new byte[5000];
        random.nextBytes(command);
        final long[][] fragments = fragments(9, 1, command);
        final List<long[]> log = new ArrayList<>();
        Collections.addAll(log, fragments);
        Collections.addAll(log, fragments);
        Collections.shuffle(log, random);
        final ClientSessions sessions = new ClientSessions(D);
        final List<byte[]> applied = new ArrayList<>();
        for (final long[] f : log)
        {
            final byte[] whole = take(sessions, f);
            if (whole != null)
            {
                applied.add(whole);
                sessions.applied(9, 1, new byte[]{1});
            }
        }
        assertEquals(1, applied.size(), "applied once");
        assertArrayEquals(command, applied.get(0));
        assertEquals(0, sessions.pendingBytes());
        // A late copy of any fragment of it changes nothing; neither does a command of an older sequence.
        assertNull(take(sessions, fragments[0]));
        assertNull(take(sessions, fragments(9, 1, new byte[3])[0]));
        assertTrue(sessions.holds(9, 1, 0));
    }

    @Test
    void aSnapshotTakenMidReassemblyCompletesTheCommandAlike() throws Exception
    {
        final byte[] command = new byte[3000];
        new Random(4).nextBytes(command);
        final long[][] fragments = fragments(5, 2, command);
        final ClientSessions before = new ClientSessions(D);
        before.applied(5, 1, new byte[]{7, 7});
        for (int i = 0; i < fragments.length / 2; i++)
        {
            assertNull(take(before, fragments[i]));
        }
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        before.writeTo(new DataOutputStream(bytes));
        final ClientSessions after = new ClientSessions(D);
        after.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertEquals(before.pendingBytes(), after.pendingBytes());
        assertArrayEquals(new byte[]{7, 7}, after.lastReply(5));
        byte[] whole = null;
        for (int i = fragments.length / 2; i < fragments.length; i++)
        {
            whole = take(after, fragments[i]);
        }
        assertArrayEquals(command, whole, "the restored replica completes the command from the snapshot's half");
    }

    @Test
    void pendingBytesAreBoundedByEvictingTheOldestReassembly()
    {
        final ClientSessions sessions = new ClientSessions(Commands.fragmentBytes(WIDE));
        final int big = (int)(ClientSessions.MAX_PENDING_BYTES / 2) + 1;
        assertNull(take(sessions, fragments(WIDE, 1, 1, new byte[big])[0], WIDE));
        assertNull(take(sessions, fragments(WIDE, 2, 1, new byte[big])[0], WIDE));
        assertEquals(big, sessions.pendingBytes(), "the first client's reassembly was evicted");
        assertTrue(!sessions.holds(1, 1, 0) && sessions.holds(2, 1, 0));
    }

    private static byte[] take(final ClientSessions sessions, final long[] f)
    {
        return take(sessions, f, WORDS);
    }

    private static byte[] take(final ClientSessions sessions, final long[] f, final int words)
    {
        final UnsafeBuffer payload = new UnsafeBuffer(new byte[8 * words]);
        final int length = Commands.payload(f, 0, words,
            ByteBuffer.wrap(payload.byteArray()).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer());
        return sessions.onFragment(Commands.clientId(f, 0), Commands.clientSeq(f, 0), Commands.fragment(f, 0), payload,
            length);
    }

    private static long[][] fragments(final long clientId, final long seq, final byte[] command)
    {
        return fragments(WORDS, clientId, seq, command);
    }

    private static long[][] fragments(final int words, final long clientId, final long seq, final byte[] command)
    {
        final int n = Commands.fragments(command.length, Commands.fragmentBytes(words));
        final long[][] out = new long[n][words];
        for (int i = 0; i < n; i++)
        {
            Commands.encodeClientFragment(out[i], 0, words, clientId, seq, i, command);
            assertEquals(clientId, Commands.clientId(out[i], 0));
            assertEquals(seq, Commands.clientSeq(out[i], 0));
        }
        return out;
    }
}
