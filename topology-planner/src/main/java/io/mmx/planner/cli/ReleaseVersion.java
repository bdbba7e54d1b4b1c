package io.mmx.planner.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The release version of mmx, the pom's {@code project.version} written into a resource when the
 * planner is built, so that {@code topo --version} and {@code mmx --version} say the same thing
 * whether they run from a jar or from classes.
 */
public final class ReleaseVersion
{
    private static final String RESOURCE = "mmx-version.properties";
    private static final String VERSION = load();

    private ReleaseVersion()
    {
    }

    /** @return the version, for example {@code 0.1.0-SNAPSHOT}. */
    public static String get()
    {
        return VERSION;
    }

    private static String load()
    {
        try (InputStream in = ReleaseVersion.class.getResourceAsStream(RESOURCE))
        {
            if (in == null)
            {
                throw new IllegalStateException(RESOURCE + " is missing from the planner's classes: rebuild with mvn");
            }
            final Properties properties = new Properties();
            properties.load(in);
            final String version = properties.getProperty("version", "");
            if (version.isEmpty() || version.startsWith("${"))
            {
                throw new IllegalStateException(RESOURCE + " was not filtered by the build (version '" + version +
                    "'): rebuild with mvn");
            }
            return version;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }
}
