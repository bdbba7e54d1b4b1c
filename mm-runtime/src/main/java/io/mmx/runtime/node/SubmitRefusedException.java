package io.mmx.runtime.node;

/**
 * A submission was refused before it entered the cluster (too large, too many pending, node
 * closed); nothing was proposed, so retrying is safe.
 */
public final class SubmitRefusedException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** @param message names the reason and the fix. */
    public SubmitRefusedException(final String message)
    {
        super(message, null, false, false);
    }
}
