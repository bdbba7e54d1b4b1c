package io.mmx.runtime.history;

import java.util.List;

/**
 * Sequential specification against which histories are checked.
 *
 * @param <S> immutable state type with value equality (used as a memo key)
 */
public interface Model<S>
{
    /** Result of applying one op: whether it was legal and the next state. */
    record Step<S>(boolean legal, S next)
    {
    }

    /** @return the initial state. */
    S initial();

    /** @return legality of {@code op} in {@code state} and the resulting state. */
    Step<S> step(S state, Operation op);

    /** Splits a history into independently checkable parts (P-compositionality); default: the whole history. */
    default List<History> partition(final History history)
    {
        return List.of(history);
    }
}
