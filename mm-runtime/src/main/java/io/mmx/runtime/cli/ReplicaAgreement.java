package io.mmx.runtime.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Whether the replicas hold the same state, from the nodes' {@code /status} documents: each
 * process reports the log index its state holds and its state digest there. Replicas are compared
 * at the highest index any reports; those at lower indexes are behind, not wrong. {@code mmx
 * status}, {@code mmx demo --restart} and the tests read it the same way.
 */
public final class ReplicaAgreement
{
    private final TreeMap<Long, Map<String, List<Integer>>> digests = new TreeMap<>();
    private int uncomparable;
    private int unreachable;

    /**
     * The verdict.
     *
     * @param total        replicas that report a comparable state.
     * @param there        of them, those at {@code index}.
     * @param index        the highest index reported.
     * @param agree        false if two digests differ at {@code index}.
     * @param uncomparable replicas that report no digest (none kept, or a gap in what they applied).
     * @param line         the sentence {@code mmx status} prints.
     */
    public record Result(int total, int there, long index, boolean agree, int uncomparable, String line)
    {
        /** {@code n} replicas report a comparable state, all at one index, with one digest. */
        public boolean complete(final int n)
        {
            return agree && uncomparable == 0 && total == n && there == n;
        }
    }

    /** Forgets what was added. */
    public void clear()
    {
        digests.clear();
        uncomparable = 0;
        unreachable = 0;
    }

    /** Adds one node's {@code /status} document (null: the node did not answer). */
    public void add(final ObjectMapper mapper, final String json) throws IOException
    {
        if (json == null)
        {
            unreachable++;
            return;
        }
        add(mapper.readTree(json));
    }

    /** Adds one node's parsed {@code /status} document. */
    public void add(final JsonNode doc)
    {
        for (final JsonNode p : doc.get("processes"))
        {
            if (p.hasNonNull("stateDigest"))
            {
                digests.computeIfAbsent(p.get("appliedIndex").asLong(), k -> new TreeMap<>())
                    .computeIfAbsent(p.get("stateDigest").asText(), k -> new ArrayList<>()).add(p.get("id").asInt());
            }
            else
            {
                uncomparable++;
            }
        }
    }

    /** The verdict over everything added. */
    public Result result()
    {
        final String others = (uncomparable == 0 ? "" : "; " + uncomparable + " report no comparable state " +
            "(no digest, or a gap in what they applied)") + (unreachable == 0 ? "" : "; " + unreachable +
            " nodes did not answer");
        if (digests.isEmpty())
        {
            return new Result(0, 0, -1, true, uncomparable, "replicas: none reports a state digest" + others);
        }
        int total = 0;
        for (final Map<String, List<Integer>> at : digests.values())
        {
            for (final List<Integer> ids : at.values())
            {
                total += ids.size();
            }
        }
        final long index = digests.lastKey();
        final Map<String, List<Integer>> top = digests.get(index);
        final int there = top.values().stream().mapToInt(List::size).sum();
        if (top.size() == 1)
        {
            return new Result(total, there, index, true, uncomparable, String.format(
                "replicas agree: %d of %d at index %d, digest %s%s", there, total, index,
                top.keySet().iterator().next(), (total > there ? "; " + (total - there) + " behind" : "") + others));
        }
        return new Result(total, there, index, false, uncomparable,
            String.format("replicas DISAGREE at index %d: %s%s", index, top, others));
    }
}
