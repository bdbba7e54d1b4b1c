package io.mmx.rdma.verbs;

/**
 * The NIC side of one reliable-connected queue pair, as {@link VerbsRegionLink} needs it: post
 * a work request already encoded in registered memory, and poll work completions. The DiSNI
 * adapter posts through {@link DisniPostSend}; tests use a software NIC that decodes the same
 * bytes.
 */
public interface VerbsQueuePair extends AutoCloseable
{
    /**
     * Posts the work request at native address {@code wrAddress}.
     *
     * @return false if the send queue is full (nothing was posted).
     */
    boolean post(long wrAddress);

    /** Delivers up to {@code max} work completions; returns how many. */
    int poll(WorkCompletionHandler handler, int max);

    /** Destroys the queue pair. */
    @Override
    void close();

    /** Receives one work completion. */
    @FunctionalInterface
    interface WorkCompletionHandler
    {
        /**
         * @param wrId     the work request id that was posted.
         * @param wcStatus an {@code enum ibv_wc_status} value, e.g. {@link VerbsAbi#IBV_WC_SUCCESS}.
         */
        void onCompletion(long wrId, int wcStatus);
    }
}
