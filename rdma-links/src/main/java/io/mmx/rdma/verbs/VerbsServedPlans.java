package io.mmx.rdma.verbs;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.plan.PlanDigest;
import io.mmx.planner.plan.PlanDirectory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The plans a verbs region host serves, as memd learns them: the launch plan, and any plan whose
 * file is in the plans directory, learned when a handshake first names it (by the first bytes of
 * its digest; the request's tag then proves the whole digest). So memd in verbs mode started with
 * {@code --plans DIR} serves the new era's regions of a live plan change without a restart.
 *
 * <p>Control path only (a handshake): it may read the plans directory. Called under the host's lock.
 */
public final class VerbsServedPlans implements VerbsEdgeAcceptor.ServedPlans
{
    private final List<VerbsEdgeAcceptor.ServedPlan> known = new ArrayList<>();
    private final PlanDirectory directory;

    /**
     * @param launch    the plan the host starts with.
     * @param directory the plans directory to learn further plans from, or null for the launch plan only.
     */
    public VerbsServedPlans(final VerbsEdgeAcceptor.ServedPlan launch, final Path directory)
    {
        known.add(launch);
        this.directory = directory == null ? null : new PlanDirectory(directory);
    }

    /** The plan {@code graph} served too, from the start. */
    public VerbsServedPlans add(final Graph graph)
    {
        known.add(new VerbsEdgeAcceptor.ServedPlan(PlanDigest.ofGraph(graph), graph));
        return this;
    }

    @Override
    public VerbsEdgeAcceptor.ServedPlan find(final byte[] prefix)
    {
        for (final VerbsEdgeAcceptor.ServedPlan plan : known)
        {
            if (startsWith(plan.digest(), prefix))
            {
                return plan;
            }
        }
        if (directory == null)
        {
            return null;
        }
        final PlanDirectory.Found found = directory.find((plan) -> startsWith(PlanDigest.ofGraph(plan.graph()), prefix));
        if (found == null)
        {
            return null;
        }
        final Graph graph = found.plan().graph();
        final VerbsEdgeAcceptor.ServedPlan learned = new VerbsEdgeAcceptor.ServedPlan(PlanDigest.ofGraph(graph), graph);
        known.add(learned);
        return learned;
    }

    private static boolean startsWith(final PlanDigest digest, final byte[] prefix)
    {
        return Arrays.equals(digest.toByteArray(), 0, prefix.length, prefix, 0, prefix.length);
    }
}
