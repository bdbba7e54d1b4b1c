package io.mmx.runtime.history;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** One register per key; state is the key's value (null = absent). Partitions by key. */
public final class KeyValueModel implements Model<String>
{
    @Override
    public String initial()
    {
        return null;
    }

    @Override
    public Step<String> step(final String state, final Operation op)
    {
        switch (op.kind())
        {
            case PUT:
                return new Step<>(true, op.value());
            case DELETE:
                return new Step<>(true, null);
            case GET:
                return new Step<>(Objects.equals(state, op.result()), state);
            case CAS:
                final boolean matches = Objects.equals(state, op.expected());
                if (op.unknown())
                {
                    // Unknown CAS outcome: it only ever takes effect if it could succeed.
                    return new Step<>(matches, op.value());
                }
                final boolean ok = "true".equals(op.result());
                return new Step<>(ok == matches, ok ? op.value() : state);
            default:
                throw new IllegalArgumentException(op.kind().toString());
        }
    }

    @Override
    public List<History> partition(final History history)
    {
        final Map<String, List<Operation>> byKey = new LinkedHashMap<>();
        for (final Operation op : history.ops())
        {
            // An unknown-outcome GET constrains nothing, so dropping it only shrinks the search.
            if (op.kind() == Operation.Kind.GET && op.unknown())
            {
                continue;
            }
            byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
        }
        final List<History> parts = new ArrayList<>();
        for (final List<Operation> ops : byKey.values())
        {
            parts.add(new History(ops));
        }
        return parts;
    }
}
