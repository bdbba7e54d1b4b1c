package io.mmx.perf.transport;

/**
 * Two endpoints A and B driven from one thread, so that every transport is measured the same way.
 */
interface LinkPair extends AutoCloseable
{
    /**
     * @param fromA true to send A to B, false B to A.
     * @param value carried in the message.
     * @return true if the message was accepted for sending.
     */
    boolean send(boolean fromA, long value);

    /**
     * Receive at one side.
     *
     * @param atA true to poll A.
     * @return the value of one received message, or -1 if none arrived.
     */
    long poll(boolean atA);

    /** @return a short name for reports. */
    String name();

    /** {@inheritDoc} */
    void close();
}
