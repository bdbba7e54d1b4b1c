package io.mmx.perf.consensus;

/**
 * Told, on the load driver's thread, that a command submitted to a {@link ReplicatedLog} is committed:
 * chosen by a majority and known to the submitting client.
 */
@FunctionalInterface
public interface CommitListener
{
    /**
     * @param commandId the id given to {@link ReplicatedLog#submit(long, org.agrona.DirectBuffer, int, int)}.
     */
    void onCommitted(long commandId);
}
