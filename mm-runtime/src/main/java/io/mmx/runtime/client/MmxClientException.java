package io.mmx.runtime.client;

/**
 * A client call that did not end with a reply. {@link #outcome()} says what is known of the command.
 */
public final class MmxClientException extends Exception
{
    /** What is known of a command whose call failed. */
    public enum Outcome
    {
        /** Not applied and never will be: a member refused it, or the session moved past it. */
        REFUSED,
        /** Not seen applied before the timeout, though a member took it: it may still apply (once). */
        UNKNOWN,
        /** No member answered at all within the timeout: most likely not applied, but not known. */
        NO_MEMBER_ANSWERED
    }

    private final Outcome outcome;

    MmxClientException(final Outcome outcome, final String message)
    {
        super(message);
        this.outcome = outcome;
    }

    /** What is known of the command. */
    public Outcome outcome()
    {
        return outcome;
    }
}
