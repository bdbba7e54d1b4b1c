package io.mmx.planner.io;

/**
 * A graph or plan file cannot be used: unreadable, malformed, truncated, or describing an
 * invalid graph. The message names the file, the place in it and the fix.
 */
public final class GraphFileException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** A file refused for the reason {@code message} gives. */
    public GraphFileException(final String message)
    {
        super(message);
    }

    /** As {@link #GraphFileException(String)}, caused by {@code cause}. */
    public GraphFileException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
