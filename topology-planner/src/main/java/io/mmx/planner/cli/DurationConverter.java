package io.mmx.planner.cli;

import picocli.CommandLine;

import java.time.Duration;
import java.util.Locale;

/** Parses durations written as {@code 10s}, {@code 500ms}, {@code 2m} or ISO-8601 {@code PT10S}. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration>
{
    @Override
    public Duration convert(final String value)
    {
        final String text = value.strip().toLowerCase(Locale.ROOT);
        try
        {
            if (text.startsWith("pt"))
            {
                return check(Duration.parse(text.toUpperCase(Locale.ROOT)), value);
            }
            if (text.endsWith("ms"))
            {
                return check(Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2))), value);
            }
            if (text.endsWith("s"))
            {
                return check(Duration.ofMillis(Math.round(Double.parseDouble(text.substring(0, text.length() - 1)) * 1000)), value);
            }
            if (text.endsWith("m"))
            {
                return check(Duration.ofSeconds(Long.parseLong(text.substring(0, text.length() - 1)) * 60), value);
            }
        }
        catch (final RuntimeException ex)
        {
            // fall through to the one message below
        }
        throw new CommandLine.TypeConversionException("'" + value + "' is not a duration; write e.g. 10s, 500ms or 2m");
    }

    private static Duration check(final Duration duration, final String value)
    {
        if (duration.isNegative())
        {
            throw new CommandLine.TypeConversionException("'" + value + "' is negative; give a duration >= 0");
        }
        return duration;
    }
}
