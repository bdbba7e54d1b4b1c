package io.mmx.planner.graph;

/**
 * A graph (or a file describing one) breaks a rule of the planner: a self-loop, a repeated or
 * one-sided edge, an id out of range. The message names the offending element and the fix.
 */
public final class InvalidGraphException extends IllegalArgumentException
{
    private static final long serialVersionUID = 1L;

    /** A graph refused for the reason {@code message} gives. */
    public InvalidGraphException(final String message)
    {
        super(message);
    }
}
