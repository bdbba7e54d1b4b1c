/**
 * Recording client histories and checking them for linearizability.
 * <p>
 * Clients wrap every operation in {@link io.mmx.runtime.history.HistoryRecorder} calls; the resulting
 * {@link io.mmx.runtime.history.History} is checked against a sequential specification, a
 * {@link io.mmx.runtime.history.Model}, by {@link io.mmx.runtime.history.LinearizabilityChecker}.
 * Histories can be saved and replayed with {@link io.mmx.runtime.history.HistoryFile}.
 *
 * <h2>Algorithm</h2>
 * The checker is Wing and Gong's backtracking search for a linearization (J. M. Wing and C. Gong,
 * "Testing and verifying concurrent objects", JPDC 17(1), 1993) with the improvements of Lowe
 * (G. Lowe, "Testing for linearizability", Concurrency and Computation: Practice and Experience 29(4), 2017):
 * <ul>
 *   <li>The history is a time-ordered doubly linked list of invocation and response events. The
 *   search linearizes, as the next operation, any operation whose invocation precedes the first
 *   remaining response; a response reached before its operation was linearized is a dead end and
 *   the search backtracks. Linearized operations are unlinked in O(1) and relinked when the search
 *   backtracks (dancing links).</li>
 *   <li>Memoisation: each configuration (set of linearized operations, model state) is recorded the
 *   first time it is reached; reaching it again by another order cannot succeed where the first
 *   visit failed, so that branch is pruned. States must therefore be immutable values with
 *   {@code equals} and {@code hashCode}.</li>
 *   <li>P-compositionality (A. Horn and D. Kroening, "Faster linearizability checking via
 *   P-compositionality", FORTE 2015): a history is linearizable if and only if each of its
 *   sub-histories for independent parts of the object is, so {@link io.mmx.runtime.history.Model#partition}
 *   splits the history (per key for {@link io.mmx.runtime.history.KeyValueModel}) and each part is
 *   searched on its own, which turns one exponential search into many small ones.</li>
 * </ul>
 * An operation whose outcome is unknown (the client timed out or crashed) has no response event:
 * it may take effect at any point after its invocation, or never. The search treats its response as
 * lying after every other event, so it never forces a backtrack, and the search succeeds as soon as
 * every operation with a known outcome is linearized.
 * <p>
 * The search is exponential in the worst case, so it is bounded by a limit on explored
 * configurations and says {@code INCONCLUSIVE} instead of running forever.
 */
package io.mmx.runtime.history;
