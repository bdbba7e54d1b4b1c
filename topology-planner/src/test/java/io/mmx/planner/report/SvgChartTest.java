package io.mmx.planner.report;

import org.junit.jupiter.api.Test;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A chart's legend draws each series with the marker the plot uses: dots as dots, bars as bars, lines as lines. */
class SvgChartTest
{
    @Test
    void legendMarkersMatchThePlot()
    {
        final String svg = new SvgChart("t", "x", "y")
            .line("proven", "#111111", new double[] {1, 2, 3}, new double[] {1, 2, 3})
            .dots("found", "#222222", new double[] {1, 2, 3}, new double[] {2, 3, 4})
            .reference("half", "#333333", 2)
            .render();
        // Three dots in the plot and one in the legend; the line is a polyline plus a solid legend line.
        assertEquals(4, count(svg, "<circle [^>]*fill=\"#222222\""), svg);
        assertEquals(0, count(svg, "<line [^>]*stroke=\"#222222\""), "no line marker for a dotted series: " + svg);
        assertEquals(1, count(svg, "<polyline [^>]*stroke=\"#111111\""), svg);
        assertEquals(1, count(svg, "<line [^>]*stroke=\"#111111\" stroke-width=\"2\"/>"), svg);
        assertEquals(2, count(svg, "<line [^>]*stroke=\"#333333\"[^>]*stroke-dasharray"), "reference and its legend: " + svg);

        final String bars = new SvgChart("t", "", "y").bars("values", "#444444", new double[] {1, 2}, new double[] {-1, 3})
            .categories("a", "b").render();
        assertEquals(3, count(bars, "<rect [^>]*fill=\"#444444\""), "two bars and a legend swatch: " + bars);
        assertEquals(0, count(bars, "<line [^>]*stroke=\"#444444\""), bars);
    }

    private static int count(final String text, final String regex)
    {
        final Matcher m = Pattern.compile(regex).matcher(text);
        int c = 0;
        while (m.find())
        {
            c++;
        }
        return c;
    }
}
