package io.mmx.rdma.verbs;

/**
 * The verbs backend cannot start on this machine; the message names the one thing missing
 * and how to install it (see {@link VerbsPreflight}).
 */
public final class VerbsUnavailableException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final String missing;

    /**
     * @param missing "libdisni", "libibverbs" or "rdma-device".
     * @param message one sentence with the fix.
     */
    public VerbsUnavailableException(final String missing, final String message)
    {
        super(message);
        this.missing = missing;
    }

    /** What is missing: "libdisni", "libibverbs" or "rdma-device". */
    public String missing()
    {
        return missing;
    }
}
