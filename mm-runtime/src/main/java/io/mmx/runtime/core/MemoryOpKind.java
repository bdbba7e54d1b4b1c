package io.mmx.runtime.core;

/** One-sided operations on 8-byte words of a region (DESIGN section 5). */
public enum MemoryOpKind
{
    /** Read one word; the completion value is the word. */
    READ,
    /** Write one word. */
    WRITE,
    /** Compare-and-swap one word; the completion value is the word before the operation. */
    CAS,
    /** Fetch-and-add one word; the completion value is the word before the operation. */
    FETCH_ADD,
    /** Read {@code lengthWords} words; the completion carries them. */
    READ_BULK,
    /** Write {@code lengthWords} words from the payload. */
    WRITE_BULK
}
