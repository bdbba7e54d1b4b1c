package io.mmx.runtime.core;

/**
 * Words a core encodes a memory operation's payload into (a record, a run of decided-log
 * entries) just before it hands them to {@link Effects#memory}, which copies them during the call.
 * So one scratch can serve every core a thread runs: a simulation of 4,096 processes kept 4,096
 * record scratches and as many decided-log scratches, some 80 MB, for words each needed for one call.
 */
public final class PayloadScratch
{
    private long[] words = new long[0];

    /** At least {@code length} words, valid until the next call; their contents are whatever was there. */
    long[] words(final int length)
    {
        if (words.length < length)
        {
            words = new long[Math.max(length, 2 * words.length)];
        }
        return words;
    }
}
