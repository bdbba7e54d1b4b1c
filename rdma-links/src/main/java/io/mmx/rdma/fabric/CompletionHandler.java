package io.mmx.rdma.fabric;

/**
 * Receives completions from {@link MemoryFabric#poll(CompletionHandler, int)}. Called on the
 * polling thread; must not block.
 */
@FunctionalInterface
public interface CompletionHandler
{
    /**
     * One operation finished.
     *
     * @param correlationId the id returned when the operation was submitted.
     * @param type          the operation.
     * @param owner         the owner of the region it addressed.
     * @param status        the outcome; {@code value} is meaningful only for {@link OpStatus#OK}.
     * @param value         the word read, the previous word (CAS, fetch-and-add) or the byte count (bulk).
     */
    void onCompletion(long correlationId, OpType type, int owner, OpStatus status, long value);
}
