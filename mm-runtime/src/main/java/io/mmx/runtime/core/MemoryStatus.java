package io.mmx.runtime.core;

/** How a memory operation ended: errors are values, never hangs. */
public enum MemoryStatus
{
    /** The operation took effect; its value is meaningful. */
    OK,
    /** No answer in time: the operation may or may not have taken effect (a CAS is ambiguous). */
    TIMEOUT,
    /** The region refused the executor: not the owner or a plan neighbour. Nothing happened. */
    REFUSED,
    /** Offset or length outside the region. Nothing happened. */
    OUT_OF_BOUNDS
}
