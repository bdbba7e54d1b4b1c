package io.mmx.runtime.node;

/**
 * Frame types the node adds beside membership (0x10..0x1F) and the core's messages (0x20..0x27).
 */
final class NodeFrames
{
    /** A command forwarded by its origin to the leader: proposalWords little-endian words. */
    static final int FORWARD = 0x30;

    private NodeFrames()
    {
    }
}
