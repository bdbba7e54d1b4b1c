package io.mmx.perf.idle;

import java.io.IOException;

/** The idle benchmark's baseline: a JVM that does nothing but wait until its stdin closes. */
public final class IdleJvm
{
    private IdleJvm()
    {
    }

    public static void main(final String[] args) throws IOException
    {
        while (System.in.read() >= 0)
        {
            // Wait for the parent: it closes stdin, or kills this JVM, when it is done.
        }
    }
}
