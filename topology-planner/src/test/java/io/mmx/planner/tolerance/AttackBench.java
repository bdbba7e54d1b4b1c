package io.mmx.planner.tolerance;

import io.mmx.planner.analysis.TestGraphs;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.spectral.Lanczos;
import io.mmx.planner.spectral.LanczosResult;
import org.junit.jupiter.api.Test;

class AttackBench
{
    @Test
    void bench()
    {
        final Graph g = TestGraphs.randomRegular(4096, 8, Long.getLong("gseed", 42));
        final LanczosResult lr = new Lanczos(7).run(g);
        System.out.println(CertifiedBound.certify(g, lr.estimate()));
        final long budget = Long.getLong("budget", 3000);
        for (int rep = 0; rep < 2; rep++)
        {
            final AttackResult r = new AttackSearch(rep, budget).search(g, 2048, rep == 0 ? lr.lambda2Vector() : null);
            System.out.println("attack |S|=" + r.witness().length + " N=" + r.closedNeighbourhoodSize() + " ms=" + r.elapsedMillis() + " " + r.method() + " iters=" + AttackSearch.ITERS);
        }
    }
}
