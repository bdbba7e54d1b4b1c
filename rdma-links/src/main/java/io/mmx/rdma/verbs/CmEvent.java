package io.mmx.rdma.verbs;

/**
 * The rdma_cm events, in the order of {@code enum rdma_cm_event_type} in
 * {@code <rdma/rdma_cma.h>}: DiSNI 2.1's {@code RdmaCmEvent.getEvent()} returns that C value,
 * and its {@code RdmaCmEvent.EventType} enum lists the same names in the same order
 * ({@code CmEventTest} checks both against this enum).
 */
public enum CmEvent
{
    /** rdma_resolve_addr done: the local device and a source port are chosen. */
    ADDR_RESOLVED,
    /** rdma_resolve_addr failed. */
    ADDR_ERROR,
    /** rdma_resolve_route done. */
    ROUTE_RESOLVED,
    /** rdma_resolve_route failed. */
    ROUTE_ERROR,
    /** Passive side: a connection request arrived. */
    CONNECT_REQUEST,
    /** Active side without a QP (unused by mmx). */
    CONNECT_RESPONSE,
    /** Connection setup failed. */
    CONNECT_ERROR,
    /** The remote side did not answer the connection request. */
    UNREACHABLE,
    /** The remote side rejected the connection request (or destroyed it unanswered). */
    REJECTED,
    /** The connection is up. */
    ESTABLISHED,
    /** The connection went down. */
    DISCONNECTED,
    /** The RDMA device was removed. */
    DEVICE_REMOVAL,
    /** Multicast (unused). */
    MULTICAST_JOIN,
    /** Multicast (unused). */
    MULTICAST_ERROR,
    /** The local address changed. */
    ADDR_CHANGE,
    /** The QP left the time-wait state. */
    TIMEWAIT_EXIT;

    private static final CmEvent[] VALUES = values();

    /** The event for a C {@code rdma_cm_event_type} value, or null if unknown. */
    public static CmEvent of(final int value)
    {
        return value >= 0 && value < VALUES.length ? VALUES[value] : null;
    }
}
