package io.mmx.planner.tolerance;

import java.util.List;

/**
 * Tolerance of a plan to failure domains, level by level (0, 1, 2, ... failed domains).
 *
 * @param domainCount   number of distinct domain labels.
 * @param largestDomain processes in the largest domain.
 * @param levels        one entry per number of failed domains, starting at 0.
 * @param justification the arguments behind the certified and attack columns.
 */
public record FailureDomainReport(int domainCount, int largestDomain, List<DomainFailureLevel> levels, String justification)
{
}
