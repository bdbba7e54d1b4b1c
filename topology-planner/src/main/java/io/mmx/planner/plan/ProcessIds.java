package io.mmx.planner.plan;

import java.util.ArrayList;
import java.util.List;

/** Process id lists as people type them: {@code 3}, {@code 0-3} or {@code 0-3,8,10-11}. */
public final class ProcessIds
{
    private ProcessIds()
    {
    }

    /** The ids {@code spec} lists, in its order; an {@link IllegalArgumentException} names a part that is not an id or a range. */
    public static int[] parse(final String spec)
    {
        final List<Integer> ids = new ArrayList<>();
        for (final String part : spec.split(","))
        {
            final String p = part.trim();
            try
            {
                final int dash = p.indexOf('-');
                final int a = Integer.parseInt(dash < 0 ? p : p.substring(0, dash));
                final int b = dash < 0 ? a : Integer.parseInt(p.substring(dash + 1));
                if (a < 0 || b < a || b - a > 1 << 20)
                {
                    throw new NumberFormatException();
                }
                for (int i = a; i <= b; i++)
                {
                    ids.add(i);
                }
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException("process ids '" + spec + "': '" + p +
                    "' is not an id or a range a-b with 0 <= a <= b");
            }
        }
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }
}
