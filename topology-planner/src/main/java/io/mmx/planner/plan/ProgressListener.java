package io.mmx.planner.plan;

/** Told when a long planning stage starts; the CLI prints it, tests ignore it. */
@FunctionalInterface
public interface ProgressListener
{
    /** Ignores every stage. */
    ProgressListener NONE = stage -> { };

    /** A stage named {@code description} starts. */
    void stage(String description);
}
