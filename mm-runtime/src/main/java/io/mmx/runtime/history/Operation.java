package io.mmx.runtime.history;

/**
 * One recorded client operation. {@code value} is the PUT value or the CAS new value; {@code expected} is the CAS
 * expected value; null means absent. {@code result} is the value a GET read (null = absent) or "true"/"false" for CAS;
 * it is ignored for PUT and DELETE. {@code completeNs == Long.MAX_VALUE} means the outcome is unknown.
 */
public record Operation(long id, int clientId, Kind kind, String key, String value, String expected, String result,
    long invokeNs, long completeNs)
{
    /** Operation kinds. */
    public enum Kind
    {
        /** Sets a key's value. */
        PUT,
        /** Reads a key's value. */
        GET,
        /** Sets a key's value if it holds the expected one. */
        CAS,
        /** Removes a key. */
        DELETE
    }

    /** @return true when the client never learned the outcome, so the op may or may not have taken effect. */
    public boolean unknown()
    {
        return completeNs == Long.MAX_VALUE;
    }
}
