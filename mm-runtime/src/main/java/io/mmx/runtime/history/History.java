package io.mmx.runtime.history;

import java.util.List;

/** Immutable list of operations. */
public record History(List<Operation> ops)
{
    /** Copies defensively so callers cannot mutate a history after checking it. */
    public History
    {
        ops = List.copyOf(ops);
    }
}
