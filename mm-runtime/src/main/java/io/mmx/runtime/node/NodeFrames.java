package io.mmx.runtime.node;

/**
 * Frame types the node adds beside membership (0x10..0x1F) and the core's messages (0x20..0x27).
 */
public final class NodeFrames
{
    /** Commands forwarded to the leader: one or more whole commands of proposalWords little-endian words. */
    public static final int FORWARD = 0x30;
    /** A replica asks a peer for a snapshot ({@link SnapshotTransfer}). */
    public static final int SNAPSHOT_REQUEST = 0x31;
    /** One chunk of a snapshot on its way. */
    public static final int SNAPSHOT_CHUNK = 0x32;
    /** A peer that cannot give the snapshot asked for. */
    public static final int SNAPSHOT_REFUSE = 0x33;

    /** True for the three snapshot transfer frames. */
    public static boolean isTransfer(final int type)
    {
        return type >= SNAPSHOT_REQUEST && type <= SNAPSHOT_REFUSE;
    }

    private NodeFrames()
    {
    }
}
