package io.mmx.runtime.snapshot;

import java.io.IOException;

/** A snapshot file or chunk that fails a check: truncated, a bad CRC, a digest or length mismatch. */
public final class CorruptSnapshotException extends IOException
{
    private static final long serialVersionUID = 1L;

    /** With a message naming the file or chunk and what failed. */
    public CorruptSnapshotException(final String message)
    {
        super(message);
    }
}
