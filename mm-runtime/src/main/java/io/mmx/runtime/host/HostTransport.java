package io.mmx.runtime.host;

import io.mmx.aeron.transport.FrameHandler;
import org.agrona.DirectBuffer;

/**
 * The host's frames in and out. The node adapts its Aeron transport; tests use an in-memory one.
 * Frames sent in one duty cycle may wait and leave together at {@link #flush()}, which the host calls
 * at the end of every {@link ProcessHost#doWork(long)}.
 */
public interface HostTransport
{
    /**
     * Hands the frames that arrived for the processes hosted here to {@code handler}.
     *
     * @return frames (or fragments) read; 0 means nothing arrived.
     */
    int poll(FrameHandler handler);

    /**
     * Sends one frame from a hosted process to any process.
     *
     * @return false if the frame was dropped (the transport counts why).
     */
    boolean send(int srcProcessId, int dstProcessId, int type, DirectBuffer payload, int offset, int length);

    /**
     * Sends one frame from a hosted process to every process on {@code dstProcessId}'s host (this one,
     * if it is hosted here); that host gets it once, with destination
     * {@link io.mmx.aeron.frame.FrameHeader#ALL_LOCAL}.
     *
     * @return false if the frame was dropped (the transport counts why).
     */
    boolean sendToHostOf(int srcProcessId, int dstProcessId, int type, DirectBuffer payload, int offset, int length);

    /**
     * Sends one frame from a hosted process to every process; each receiving host gets it once, with
     * destination {@link io.mmx.aeron.frame.FrameHeader#ALL_LOCAL}.
     *
     * @return hosts the frame was handed to.
     */
    int broadcast(int srcProcessId, int type, DirectBuffer payload, int offset, int length);

    /**
     * Sends what this duty cycle left waiting.
     *
     * @return messages sent.
     */
    int flush();

    /** @return the largest frame, header and tag included, in bytes. */
    int maxFrameLengthBytes();
}
