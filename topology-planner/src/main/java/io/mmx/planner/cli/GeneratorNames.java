package io.mmx.planner.cli;

import io.mmx.planner.generate.Generators;

import java.util.Iterator;

/** The generator names, for {@code --help} and shell completion. */
final class GeneratorNames implements Iterable<String>
{
    @Override
    public Iterator<String> iterator()
    {
        return Generators.allNames().iterator();
    }
}
