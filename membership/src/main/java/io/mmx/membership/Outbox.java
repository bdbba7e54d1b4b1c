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

    /**
     * One message for every process of {@code dstProcessId}'s host (the receiving host hands it to each
     * of its processes). The default sends it to {@code dstProcessId} alone: right where every process
     * is a host of its own; a transport that knows hosts overrides it.
     *
     * @param srcProcessId sender.
     * @param dstProcessId any process of the receiving host.
     * @param type         message type.
     * @param buffer       holding the message.
     * @param offset       of the message.
     * @param length       in bytes.
     */
    default void sendToHostOf(int srcProcessId, int dstProcessId, int type, DirectBuffer buffer, int offset,
        int length)
    {
        send(srcProcessId, dstProcessId, type, buffer, offset, length);
    }

    /**
     * An outbox over two sends of one transport: {@code perProcess} for {@link #send}, {@code perHost} for
     * {@link #sendToHostOf} (for example {@code Outbox.of(transport::send, transport::sendToHostOf)}).
     *
     * @param perProcess sends one message to one process.
     * @param perHost    sends one message to every process of the given process's host.
     * @return the outbox.
     */
    static Outbox of(final Outbox perProcess, final Outbox perHost)
    {
        return new Outbox()
        {
            @Override
            public void send(final int src, final int dst, final int type, final DirectBuffer buffer, final int offset,
                final int length)
            {
                perProcess.send(src, dst, type, buffer, offset, length);
            }

            @Override
            public void sendToHostOf(final int src, final int dst, final int type, final DirectBuffer buffer,
                final int offset, final int length)
            {
                perHost.send(src, dst, type, buffer, offset, length);
            }
        };
    }
}
