package io.mmx.rdma.fabric;

import org.agrona.DirectBuffer;

/** Where a {@link RegionLink} reports the outcome of an operation it was given. */
public interface CompletionSink
{
    /**
     * One operation finished.
     *
     * @param correlationId the id the operation was submitted with.
     * @param status        its outcome.
     * @param value         word, previous word or byte count; see {@link CompletionHandler}.
     * @param payload       for a bulk read that the link could not place directly, the bytes read; else null.
     * @param payloadOffset where the bytes start in {@code payload}.
     */
    void complete(long correlationId, OpStatus status, long value, DirectBuffer payload, int payloadOffset);
}
