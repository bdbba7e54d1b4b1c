package io.mmx.perf.planner;

import io.mmx.planner.generate.RandomRegularGenerator;
import io.mmx.planner.graph.Graph;
import io.mmx.planner.spectral.Lanczos;
import io.mmx.planner.spectral.SpectrumEstimate;
import io.mmx.planner.tolerance.Certificate;
import io.mmx.planner.tolerance.CertifiedBound;
import org.jgrapht.generate.RandomRegularGraphGenerator;
import org.jgrapht.graph.DefaultEdge;
import org.jgrapht.graph.SimpleGraph;
import org.jgrapht.util.SupplierUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Planner speed at n = 4096, d = 8: the mmx random-regular generator alone, generation plus the
 * spectral certificate (what {@code topo plan} must do in under 0.3 s), and JGraphT's own
 * random regular generator as the same-run baseline. A fresh seed per call, so no graph is
 * reused. Sampled times, so the report can give the median beside the mean: JGraphT's generator
 * restarts its pairing until the graph is simple, which gives it a heavy tail.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class PlannerBenchmarks
{
    /** Processes. */
    @Param("4096")
    public int n;

    /** Degree. */
    @Param("8")
    public int degree;

    private long seed;

    /** Generates a random regular graph with mmx's generator. */
    @Benchmark
    public Graph mmxGenerate()
    {
        return new RandomRegularGenerator().generate(n, degree, ++seed);
    }

    /** Generates one and certifies its crash tolerance. */
    @Benchmark
    public Certificate mmxGenerateAndCertify()
    {
        final Graph graph = new RandomRegularGenerator().generate(n, degree, ++seed);
        final SpectrumEstimate spectrum = new Lanczos(seed).estimate(graph);
        return CertifiedBound.certify(graph, spectrum);
    }

    /** The baseline: JGraphT generates a random regular graph of the same size. */
    @Benchmark
    public SimpleGraph<Integer, DefaultEdge> jgraphtGenerate()
    {
        final SimpleGraph<Integer, DefaultEdge> graph = new SimpleGraph<>(SupplierUtil.createIntegerSupplier(),
            SupplierUtil.DEFAULT_EDGE_SUPPLIER, false);
        new RandomRegularGraphGenerator<Integer, DefaultEdge>(n, degree, new Random(++seed)).generateGraph(graph);
        return graph;
    }
}
