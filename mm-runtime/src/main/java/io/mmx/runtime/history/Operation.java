package io.mmx.runtime.history;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * One operation of a recorded history: who invoked what on which key, what it returned, and when.
 * <p>
 * An operation whose outcome is unknown (timed out, or its client crashed) has no response time:
 * {@link #completeNs()} is {@link #UNKNOWN_COMPLETION_NS} and {@link #result()} is meaningless. Such an
 * operation may have taken effect at any time after its invocation, or never.
 * <p>
 * Arguments and results are strings so that any model can interpret them and histories can be
 * saved as text; {@code null} means "absent" (e.g. a read of a missing key).
 */
public final class Operation
{
    /**
     * The completion time of an operation whose outcome is unknown: later than any real time.
     */
    public static final long UNKNOWN_COMPLETION_NS = Long.MAX_VALUE;

    private final int id;
    private final int clientId;
    private final String kind;
    private final String key;
    private final List<String> args;
    private final String result;
    private final long invokeNs;
    private final long completeNs;

    /**
     * Create an operation.
     *
     * @param id         identifier unique within its history, used in explanations.
     * @param clientId   the client (process) that invoked it.
     * @param kind       the operation name understood by the model, e.g. {@code PUT}.
     * @param key        the key (or object) it acts on.
     * @param args       its arguments; elements may be {@code null} for "absent".
     * @param result     its result, {@code null} for "absent" or no result.
     * @param invokeNs   time of invocation.
     * @param completeNs time of response, or {@link #UNKNOWN_COMPLETION_NS} if the outcome is unknown.
     */
    public Operation(
        final int id,
        final int clientId,
        final String kind,
        final String key,
        final List<String> args,
        final String result,
        final long invokeNs,
        final long completeNs)
    {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(args, "args");
        if (kind.isEmpty())
        {
            throw new IllegalArgumentException("operation " + id + " has an empty kind; name the operation, e.g. PUT");
        }
        if (completeNs < invokeNs)
        {
            throw new IllegalArgumentException("operation " + id + " completes at " + completeNs +
                " before its invocation at " + invokeNs + "; use a monotonic clock");
        }
        this.id = id;
        this.clientId = clientId;
        this.kind = kind;
        this.key = key;
        // Arrays.asList/List.of reject nulls or stay mutable; nulls mean "absent" here.
        this.args = Collections.unmodifiableList(new ArrayList<>(args));
        this.result = result;
        this.invokeNs = invokeNs;
        this.completeNs = completeNs;
    }

    /**
     * @return identifier unique within its history.
     */
    public int id()
    {
        return id;
    }

    /**
     * @return the client (process) that invoked the operation.
     */
    public int clientId()
    {
        return clientId;
    }

    /**
     * @return the operation name understood by the model.
     */
    public String kind()
    {
        return kind;
    }

    /**
     * @return the key the operation acts on.
     */
    public String key()
    {
        return key;
    }

    /**
     * @return the arguments, unmodifiable; elements may be {@code null}.
     */
    public List<String> args()
    {
        return args;
    }

    /**
     * @param index of the argument.
     * @return the argument, possibly {@code null} for "absent".
     */
    public String arg(final int index)
    {
        if (index >= args.size())
        {
            throw new IllegalArgumentException("operation " + this + " has no argument " + index);
        }
        return args.get(index);
    }

    /**
     * @return the result, {@code null} for "absent"; meaningless if the outcome is unknown.
     */
    public String result()
    {
        return result;
    }

    /**
     * @return time of invocation.
     */
    public long invokeNs()
    {
        return invokeNs;
    }

    /**
     * @return time of response, {@link #UNKNOWN_COMPLETION_NS} if the outcome is unknown.
     */
    public long completeNs()
    {
        return completeNs;
    }

    /**
     * @return true if the client never learned whether the operation took effect.
     */
    public boolean isOutcomeUnknown()
    {
        return completeNs == UNKNOWN_COMPLETION_NS;
    }

    /**
     * {@inheritDoc}
     */
    public boolean equals(final Object o)
    {
        if (this == o)
        {
            return true;
        }
        if (!(o instanceof Operation))
        {
            return false;
        }
        final Operation that = (Operation)o;
        return id == that.id && clientId == that.clientId && invokeNs == that.invokeNs &&
            completeNs == that.completeNs && kind.equals(that.kind) && key.equals(that.key) &&
            args.equals(that.args) && Objects.equals(result, that.result);
    }

    /**
     * {@inheritDoc}
     */
    public int hashCode()
    {
        return Objects.hash(id, clientId, kind, key, args, result, invokeNs, completeNs);
    }

    /**
     * @return e.g. {@code #7 c2 CAS(x, 1, 2) -> true [100, 250]}.
     */
    public String toString()
    {
        final StringBuilder sb = new StringBuilder();
        sb.append('#').append(id).append(" c").append(clientId).append(' ').append(kind).append('(').append(key);
        for (final String arg : args)
        {
            sb.append(", ").append(arg == null ? "<absent>" : arg);
        }
        sb.append(") -> ");
        if (isOutcomeUnknown())
        {
            sb.append("? [").append(invokeNs).append(", unknown)");
        }
        else
        {
            sb.append(result == null ? "<absent>" : result).append(" [").append(invokeNs).append(", ")
                .append(completeNs).append(']');
        }
        return sb.toString();
    }
}
