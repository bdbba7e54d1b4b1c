package io.mmx.aeron.transport;

import io.mmx.aeron.frame.FrameHeader;
import org.agrona.DirectBuffer;

/**
 * Receives frames that passed verification. The buffer is only valid during the call.
 */
@FunctionalInterface
public interface FrameHandler
{
    /**
     * @param header        of the frame: type, source, destination ({@link FrameHeader#ALL_LOCAL} for a broadcast).
     * @param buffer        holding the payload.
     * @param payloadOffset of the payload.
     * @param payloadLength in bytes.
     */
    void onFrame(FrameHeader header, DirectBuffer buffer, int payloadOffset, int payloadLength);
}
