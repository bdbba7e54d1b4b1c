package io.mmx.planner.cli;

/** The exit codes of {@code topo}, also listed in the README. */
public final class ExitCodes
{
    /** Success. */
    public static final int OK = 0;
    /** A plan failed verification: the plan is wrong, not the command. */
    public static final int VERIFY_FAILED = 1;
    /** Bad arguments or a bad input file. */
    public static final int BAD_INPUT = 2;
    /** Reading or writing a file failed. */
    public static final int IO_ERROR = 3;
    /** {@code diff --live}: the live processes would not reach a quorum of the new plan's acceptors. */
    public static final int NO_QUORUM = 4;

    private ExitCodes()
    {
    }
}
