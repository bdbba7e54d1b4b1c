package io.mmx.planner.generate;

/**
 * The arguments of one generation, validated once for every generator: a connected simple
 * {@code degree}-regular graph on {@code n} vertices must be able to exist and fit in memory.
 * Family-specific rules (hypercube sizes, placement capacity) are checked by the family.
 *
 * @param n      number of processes (vertices)
 * @param degree neighbours per process
 * @param seed   the seed that reproduces the graph
 */
public record GenerationRequest(int n, int degree, long seed)
{
    /** Largest {@code n·degree}: the generators hold one int per edge endpoint in one array. */
    public static final long MAX_ENDPOINTS = Integer.MAX_VALUE - 8;

    /** Refuses an n and degree no generator can meet, naming why. */
    public GenerationRequest
    {
        validate(n, degree);
    }

    /**
     * Checks the rules every connected simple regular graph obeys.
     *
     * @throws IllegalArgumentException with one sentence naming the problem and the fix.
     */
    public static void validate(final int n, final int degree)
    {
        if (n < 2)
        {
            throw new IllegalArgumentException("n = " + n + " is too small: a plan needs at least 2 processes; " +
                "use n >= 2");
        }
        if (degree < 1)
        {
            throw new IllegalArgumentException("degree = " + degree + " leaves processes without neighbours; " +
                "use degree >= 1 (3 or more for a useful expander)");
        }
        if (degree >= n)
        {
            throw new IllegalArgumentException("degree = " + degree + " is not below n = " + n +
                ": a process has at most n - 1 = " + (n - 1) + " neighbours; lower the degree or raise n");
        }
        if (((long)n * degree) % 2 != 0)
        {
            throw new IllegalArgumentException("n·degree must be even: a d-regular graph on n vertices has n·d/2 " +
                "edges, and n = " + n + ", degree = " + degree + " gives " + ((long)n * degree) +
                "; change n or degree");
        }
        if (degree == 1 && n > 2)
        {
            throw new IllegalArgumentException("degree 1 pairs processes off and cannot connect more than 2 of " +
                "them, but n = " + n + "; use degree >= 2 (3 or more for a useful expander)");
        }
        if ((long)n * degree > MAX_ENDPOINTS)
        {
            throw new IllegalArgumentException("n·degree = " + ((long)n * degree) + " exceeds the " +
                MAX_ENDPOINTS + " edge endpoints an in-memory plan can hold; lower n or degree");
        }
    }
}
