package io.mmx.runtime.node;

/**
 * A submission was not seen committed within the submit timeout. Its outcome is unknown: it may
 * still commit (and then be applied, once). Retrying submits a new command.
 */
public final class SubmitTimeoutException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** @param message names the command and the timeout. */
    public SubmitTimeoutException(final String message)
    {
        super(message, null, false, false);
    }
}
