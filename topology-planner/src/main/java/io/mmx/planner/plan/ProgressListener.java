package io.mmx.planner.plan;

/** Told when a long planning stage starts; the CLI prints it, tests ignore it. */
@FunctionalInterface
public interface ProgressListener
{
    ProgressListener NONE = stage -> { };

    void stage(String description);
}
