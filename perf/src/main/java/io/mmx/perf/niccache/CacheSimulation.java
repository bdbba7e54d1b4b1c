package io.mmx.perf.niccache;

/**
 * Runs a reference stream through a QP-context cache: a warm-up that fills the cache, then a
 * measured run.
 */
public final class CacheSimulation
{
    private CacheSimulation()
    {
    }

    /**
     * @param stream           the references; a finite stream may end early.
     * @param cache            the cache, warm or cold.
     * @param warmupReferences references run before counting (at least a few cache-fulls).
     * @param measuredReferences references counted.
     */
    public static CacheOutcome run(
        final ReferenceStream stream, final QpContextCache cache, final long warmupReferences,
        final long measuredReferences)
    {
        for (long i = 0; i < warmupReferences; i++)
        {
            final long reference = stream.next();
            if (reference == ReferenceStream.END)
            {
                break;
            }
            cache.access(ReferenceStream.qpId(reference));
        }
        final CacheOutcome outcome = new CacheOutcome();
        for (long i = 0; i < measuredReferences; i++)
        {
            final long reference = stream.next();
            if (reference == ReferenceStream.END)
            {
                break;
            }
            outcome.record(ReferenceStream.op(reference), cache.access(ReferenceStream.qpId(reference)));
        }
        return outcome;
    }
}
