package io.mmx.planner.cli;

import io.mmx.planner.generate.Generators;
import io.mmx.planner.generate.RackAwareGenerator;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/** The generator names, for {@code --help} and shell completion. */
final class GeneratorNames implements Iterable<String>
{
    @Override
    public Iterator<String> iterator()
    {
        final List<String> names = new ArrayList<>(Generators.names());
        names.add(RackAwareGenerator.NAME);
        return names.iterator();
    }
}
