package io.mmx.membership;

import org.agrona.DirectBuffer;

/**
 * Where a sans-IO membership node puts the messages it wants sent. The buffer is only valid during
 * the call: an implementation copies or sends it before returning. Delivery is best effort.
 */
@FunctionalInterface
public interface Outbox
{
    /**
     * @param srcProcessId sender.
     * @param dstProcessId receiver.
     * @param type         message type ({@link io.mmx.membership.wire.MessageType}).
     * @param buffer       holding the message.
     * @param offset       of the message.
     * @param length       in bytes.
     */
    void send(int srcProcessId, int dstProcessId, int type, DirectBuffer buffer, int offset, int length);
}
