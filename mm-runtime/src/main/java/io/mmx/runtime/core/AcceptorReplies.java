package io.mmx.runtime.core;

/** Where an {@link AcceptorDriver} reports the results of the transitions it ran. */
interface AcceptorReplies
{
    /** Acceptor {@code acceptor} promised {@code ballot}; {@code record} is its state after the promise. */
    void promised(int acceptor, long ballot, AcceptorRecord record);

    /** Acceptor {@code acceptor} refused {@code ballot}: it promised {@code promised}. */
    void refused(int acceptor, long ballot, long promised);

    /**
     * The driver is done with {@code accept} for {@code acceptor}: {@code outcome} is null if the
     * request was dropped (retries exhausted, queue full, coverage ended). Called exactly once per
     * request handed to {@link AcceptorDriver#enqueueAccept}.
     */
    void acceptResolved(int acceptor, Message.Accept accept, AcceptorTransition.AcceptOutcome outcome, long floor);
}
