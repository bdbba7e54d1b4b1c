package io.mmx.planner.io;

/**
 * A graph or plan file cannot be used: unreadable, malformed, truncated, or describing an
 * invalid graph. The message names the file, the place in it and the fix.
 */
public final class GraphFileException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    public GraphFileException(final String message)
    {
        super(message);
    }

    public GraphFileException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
