package io.mmx.runtime.sim;

import io.mmx.runtime.core.Flaw;
import io.mmx.runtime.node.ReplicaFlaw;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The host simulation's checker must catch deliberately broken nodes: each variant runs through
 * the same {@link HostSimulation} as {@link HostSimulationSweepTest}, seeds 1, 2, ..., and must fail
 * within {@link #BUDGET} seeds, and the correct node must pass the seed that caught it, so the catch
 * is the variant's doing. Measured over seeds 1-40 ({@code bin/mmx sim --host --seeds 1-40 --variant
 * NAME --every-seed}): filter-forgets-older is caught by 16 seeds, first seed 1; skip-phase1 by 7,
 * first seed 12. (Before half the seeds ran with the hosts' liveness told, {@link HostFaults#liveness},
 * 27 and 13: a paused leader whose host surely runs is not replaced, so those seeds change leaders
 * less, and leader changes are what skip-phase1 needs.)
 */
class HostBrokenVariantTest
{
    /** Seeds per variant before the test gives up. */
    static final int BUDGET = Integer.getInteger("mmx.hostsim.variantBudget", 30);

    @Test
    void aDuplicateFilterThatForgetsOlderCommandsIsCaught()
    {
        final HostSimulation.Options options = new HostSimulation.Options();
        options.replicaFlaw = ReplicaFlaw.FILTER_FORGETS_OLDER;
        assertCaught(options, ReplicaFlaw.FILTER_FORGETS_OLDER.cliName());
    }

    @Test
    void aLeaderThatSkipsPhase1IsCaught()
    {
        final HostSimulation.Options options = new HostSimulation.Options();
        options.flaw = Flaw.SKIP_PHASE1;
        assertCaught(options, Flaw.SKIP_PHASE1.cliName());
    }

    /** Measured over seeds 1-40 with two drawn plan changes a run: caught by 36 seeds, first seed 1. */
    @Test
    void aReplicaThatAppliesPastAPlanChangeIsCaught()
    {
        final HostSimulation.Options options = new HostSimulation.Options();
        options.planChanges = 2;
        options.replicaFlaw = ReplicaFlaw.APPLIES_PAST_PLAN_CHANGE;
        assertCaught(options, ReplicaFlaw.APPLIES_PAST_PLAN_CHANGE.cliName());
    }

    /** Measured over seeds 1-40 with two drawn plan changes a run: caught by 30 seeds, first seed 1. */
    @Test
    void aHostThatSwitchesErasWithoutTheStateIsCaught()
    {
        final HostSimulation.Options options = new HostSimulation.Options();
        options.planChanges = 2;
        options.replicaFlaw = ReplicaFlaw.SWITCH_SKIPS_STATE;
        assertCaught(options, ReplicaFlaw.SWITCH_SKIPS_STATE.cliName());
    }

    private static void assertCaught(final HostSimulation.Options options, final String name)
    {
        for (long seed = 1; seed <= BUDGET; seed++)
        {
            final SeedSweep.Outcome o = HostSimulation.run(seed, options);
            if (o.verdict() != SeedSweep.Verdict.OK)
            {
                System.out.println("host variant " + name + ": caught by seed " + seed + " (" + o.verdict() + ") " +
                    o.description().replaceAll("^.*?\\}[^:]*: ", "") + "\n  replay: bin/mmx sim --host --seeds " + seed +
                    "-" + seed + (options.planChanges > 0 ? " --plan-changes " + options.planChanges : "") +
                    " --variant " + name + " --verbose");
                assertEquals(SeedSweep.Verdict.SAFETY, o.verdict(), "a broken variant breaks safety: " + o.description());
                final HostSimulation.Options correctOptions = new HostSimulation.Options();
                correctOptions.planChanges = options.planChanges;
                final SeedSweep.Outcome correct = HostSimulation.run(seed, correctOptions);
                assertEquals(SeedSweep.Verdict.OK, correct.verdict(),
                    "the correct node must pass seed " + seed + ": " + correct.description());
                return;
            }
        }
        fail("host variant " + name + " survived seeds 1.." + BUDGET);
    }
}
