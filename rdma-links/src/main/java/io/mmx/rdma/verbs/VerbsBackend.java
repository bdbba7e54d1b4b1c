package io.mmx.rdma.verbs;

/**
 * Entry point of the verbs (RDMA, DiSNI 2.1) backend. Every way into the backend goes through
 * {@link #requireAvailable()}, so that a machine without RDMA fails at start-up with one clear
 * message instead of an {@code UnsatisfiedLinkError} deep inside DiSNI.
 */
public final class VerbsBackend
{
    private VerbsBackend()
    {
    }

    /**
     * Checks libdisni, libibverbs and an RDMA device, in that order.
     *
     * @return the preflight result when everything is present.
     * @throws VerbsUnavailableException naming the first thing missing and how to install it.
     */
    public static VerbsPreflight.Result requireAvailable()
    {
        return requireAvailable(VerbsPreflight.check());
    }

    /** {@link #requireAvailable()} on a given result (tests). */
    static VerbsPreflight.Result requireAvailable(final VerbsPreflight.Result result)
    {
        if (!result.ok())
        {
            throw new VerbsUnavailableException(result.missing(), result.message());
        }
        return result;
    }
}
