package io.mmx.runtime.node;

import io.aeron.Aeron;
import io.aeron.CommonContext;
import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.mmx.aeron.frame.FrameKey;
import io.mmx.aeron.frame.FrameCounters;
import io.mmx.aeron.frame.FrameEncoder;
import io.mmx.aeron.frame.FrameVerifier;
import io.mmx.runtime.client.ClientWire;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/** A client that writes frames by hand: the same command twice, frames under a wrong key, to a member's own stream. */
final class RawClient implements AutoCloseable
{
    /** One reply as it arrived. */
    record Reply(long clientId, long seq, int status, byte[] body)
    {
    }

    private final MediaDriver driver;
    private final Aeron aeron;
    private final Subscription subscription;
    private final String replyEndpoint;
    private final UnsafeBuffer payload = new UnsafeBuffer(new byte[ClientWire.MAX_FRAME_BYTES]);
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[ClientWire.MAX_FRAME_BYTES]);
    private final FrameVerifier verifier;
    private final List<Reply> replies = new java.util.ArrayList<>();

    RawClient(final FrameKey replyKey)
    {
        driver = MediaDriver.launchEmbedded(new MediaDriver.Context().aeronDirectoryName(
            CommonContext.generateRandomDirName()).threadingMode(ThreadingMode.SHARED).dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true).publicationTermBufferLength(ClientWire.TERM_LENGTH_BYTES));
        aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
        subscription = aeron.addSubscription("aeron:udp?endpoint=127.0.0.1:0", ClientWire.STREAM_ID);
        NodeTestSupport.await(() -> !subscription.localSocketAddresses().isEmpty(), 10_000, "the reply endpoint");
        final String bound = subscription.localSocketAddresses().get(0);
        replyEndpoint = "127.0.0.1" + bound.substring(bound.lastIndexOf(':'));
        verifier = new FrameVerifier(replyKey, ClientWire.MAX_FRAME_BYTES, new FrameCounters());
    }

    ExclusivePublication connect(final String endpoint, final int streamId)
    {
        final ExclusivePublication p = aeron.addExclusivePublication("aeron:udp?endpoint=" + endpoint + "|term-length=" +
            ClientWire.TERM_LENGTH_BYTES, streamId);
        NodeTestSupport.await(p::isConnected, 10_000, "a path to " + endpoint);
        return p;
    }

    /** Sends every chunk of one command, signed with {@code key}. */
    void request(final ExclusivePublication p, final FrameKey key, final long clientId, final long seq,
        final byte[] command)
    {
        final FrameEncoder encoder = new FrameEncoder(key, System.nanoTime());
        int offset = 0;
        do
        {
            final int length = ClientWire.encodeRequest(payload, clientId, seq, command, offset,
                ClientWire.ascii(replyEndpoint));
            offer(p, encoder.encode(frame, 0, ClientWire.REQUEST, -1, -1, payload, 0, length));
            offset += ClientWire.CHUNK_BYTES;
        }
        while (offset < command.length);
    }

    /** Sends one frame of any type and payload, signed with {@code key}. */
    void raw(final ExclusivePublication p, final FrameKey key, final int type, final int src, final int dst,
        final byte[] bytes)
    {
        final int length = new FrameEncoder(key, System.nanoTime()).encode(frame, 0, type, src, dst,
            new UnsafeBuffer(bytes), 0, bytes.length);
        offer(p, length);
    }

    private void offer(final ExclusivePublication p, final int length)
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (p.offer(frame, 0, length) < 0)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("a frame was not taken within 10 s");
            }
            LockSupport.parkNanos(100_000);
        }
    }

    /** Waits for a reply of (clientId, seq) with one of {@code statuses}. */
    Reply await(final long clientId, final long seq, final List<Integer> statuses)
    {
        final FragmentAssembler assembler = new FragmentAssembler((buffer, offset, length, header) ->
        {
            if (verifier.verify(buffer, offset, length) == null)
            {
                final int at = verifier.header().payloadOffset();
                final int n = verifier.header().payloadLength();
                final int leader = buffer.getShort(at + 17, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
                final byte[] body = new byte[n - ClientWire.REPLY_HEADER_BYTES - leader];
                buffer.getBytes(at + ClientWire.REPLY_HEADER_BYTES + leader, body);
                replies.add(new Reply(buffer.getLong(at, ByteOrder.LITTLE_ENDIAN), buffer.getLong(at + 8,
                    ByteOrder.LITTLE_ENDIAN), buffer.getByte(at + 16), body));
            }
        });
        final Reply[] found = new Reply[1];
        NodeTestSupport.await(() ->
        {
            subscription.poll(assembler, 16);
            for (final Reply r : replies)
            {
                if (r.clientId == clientId && r.seq == seq && statuses.contains(r.status))
                {
                    found[0] = r;
                    replies.clear();
                    return true;
                }
            }
            return false;
        }, 30_000, "a reply to " + clientId + "/" + seq + " with status " + statuses);
        return found[0];
    }

    @Override
    public void close()
    {
        CloseHelper.closeAll(aeron, driver);
    }
}
