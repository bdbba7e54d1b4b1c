package io.mmx.planner.cli;

import io.mmx.planner.io.AtomicFiles;
import io.mmx.planner.io.EdgeListFormat;
import io.mmx.planner.placement.Placement;
import io.mmx.planner.plan.Plan;
import io.mmx.planner.plan.PlanAnalysis;
import io.mmx.planner.plan.PlanFile;
import io.mmx.planner.tolerance.DomainFailureLevel;
import io.mmx.planner.tolerance.FailureDomainReport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code topo export}: the facts of a plan as plain lines for shell scripts (the ops scripts read
 * plans through this, so they need no JSON tool). Checks the content hash first: a plan edited by
 * hand is refused rather than deployed.
 */
@Command(
    name = "export",
    mixinStandardHelpOptions = true,
    description = {
        "Prints a plan's facts as 'key value' lines (content hash, n, placement shape, certified " +
        "tolerance, host and rack failure rows) and writes its placement, hosts and edge list as plain " +
        "text files. Refuses a plan whose content hash does not match its content."})
final class ExportCommand implements Callable<Integer>
{
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PLAN", description = "the plan file")
    Path file;

    @Option(names = "--placement", paramLabel = "FILE", description = "write one 'process rack host' line per process")
    Path placementFile;

    @Option(names = "--hosts", paramLabel = "FILE",
        description = "write one 'host H rack R ids SPEC' line per host that holds processes (SPEC: 0-3,8)")
    Path hostsFile;

    @Option(names = "--edges", paramLabel = "FILE",
        description = "write the edge list: first line 'n m', then one 'u v' line per edge (what memd --plan-edges reads)")
    Path edgesFile;

    @Override
    public Integer call() throws IOException
    {
        final Plan plan = PlanFile.readSealed(file);
        final Placement placement = plan.placement();
        if (placement == null && (placementFile != null || hostsFile != null))
        {
            throw new IllegalArgumentException(file + " has no placement, so it has no hosts to export: make the plan " +
                "with --racks R --hosts-per-rack H --procs-per-host P");
        }
        if (edgesFile != null)
        {
            AtomicFiles.write(edgesFile, out -> EdgeListFormat.write(plan.graph(), out));
        }
        if (placementFile != null)
        {
            AtomicFiles.write(placementFile, out ->
            {
                for (int p = 0; p < plan.n(); p++)
                {
                    out.write(p + " " + placement.rackOf(p) + " " + placement.hostOf(p) + "\n");
                }
            });
        }
        if (hostsFile != null)
        {
            AtomicFiles.write(hostsFile, out ->
            {
                for (int h = 0; h < placement.hosts(); h++)
                {
                    final int[] ids = placement.processesOnHost(h);
                    if (ids.length > 0)
                    {
                        out.write("host " + h + " rack " + placement.rackOfHost(h) + " ids " + idSpec(ids) + "\n");
                    }
                }
            });
        }
        printFacts(plan, spec.commandLine().getOut());
        return ExitCodes.OK;
    }

    private static void printFacts(final Plan plan, final PrintWriter out)
    {
        out.println("content_hash " + plan.contentHash());
        out.println("n " + plan.n());
        out.println("degree " + plan.degree());
        final Placement placement = plan.placement();
        if (placement == null)
        {
            out.println("placement none");
        }
        else
        {
            out.println("racks " + placement.racks());
            out.println("hosts_per_rack " + placement.hostsPerRack());
            out.println("procs_per_host " + placement.procsPerHost());
        }
        final PlanAnalysis analysis = plan.analysisResults();
        out.println("certified_f " + analysis.certifiedF());
        printDomainRows(out, "host_failures", analysis.hosts());
        printDomainRows(out, "rack_failures", analysis.racks());
        out.flush();
    }

    /** One line per recorded level: "KEY failed further_crashes_certified" (-1: the loss alone blocks). */
    private static void printDomainRows(final PrintWriter out, final String key, final FailureDomainReport report)
    {
        if (report == null)
        {
            return;
        }
        for (final DomainFailureLevel level : report.levels())
        {
            out.println(key + " " + level.failedDomains() + " " + level.certifiedFurtherCrashes());
        }
    }

    /** Ascending ids as ranges: {0,1,2,3,8} gives "0-3,8". */
    static String idSpec(final int[] ascending)
    {
        final StringBuilder spec = new StringBuilder();
        int i = 0;
        while (i < ascending.length)
        {
            int j = i;
            while (j + 1 < ascending.length && ascending[j + 1] == ascending[j] + 1)
            {
                j++;
            }
            if (spec.length() > 0)
            {
                spec.append(',');
            }
            spec.append(ascending[i]);
            if (j > i)
            {
                spec.append('-').append(ascending[j]);
            }
            i = j + 1;
        }
        return spec.toString();
    }
}
