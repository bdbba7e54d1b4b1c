package io.mmx.runtime.node;

/**
 * A submission was committed and applied, but its reply is not known: the replica it waited on
 * fell behind and took a peer's snapshot whose state already held the command, and a snapshot keeps
 * the state, not the replies. The command took effect exactly once; read the state to learn its
 * effect. Do not retry it as a new command.
 */
public final class SubmitAppliedException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** @param message names the command. */
    public SubmitAppliedException(final String message)
    {
        super(message, null, false, false);
    }
}
