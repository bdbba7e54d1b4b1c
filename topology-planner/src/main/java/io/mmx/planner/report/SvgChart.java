package io.mmx.planner.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small self-contained SVG chart: line and step series, bars, horizontal reference lines,
 * axes with ticks and a legend. Enough for the plan report without a plotting library.
 */
final class SvgChart
{
    private static final int WIDTH = 760;
    private static final int HEIGHT = 380;
    private static final int LEFT = 70;
    private static final int RIGHT = 20;
    private static final int TOP = 40;
    private static final int BOTTOM = 50;

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final List<Series> series = new ArrayList<>();
    private final List<Reference> references = new ArrayList<>();
    private double xMin = Double.POSITIVE_INFINITY;
    private double xMax = Double.NEGATIVE_INFINITY;
    private double yMin = Double.POSITIVE_INFINITY;
    private double yMax = Double.NEGATIVE_INFINITY;
    private String[] categories;

    private record Series(String name, String colour, double[] xs, double[] ys, boolean bars, boolean dots)
    {
    }

    private record Reference(String name, String colour, double y)
    {
    }

    SvgChart(final String title, final String xLabel, final String yLabel)
    {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
    }

    SvgChart line(final String name, final String colour, final double[] xs, final double[] ys)
    {
        return add(new Series(name, colour, xs, ys, false, false));
    }

    SvgChart dots(final String name, final String colour, final double[] xs, final double[] ys)
    {
        return add(new Series(name, colour, xs, ys, false, true));
    }

    SvgChart bars(final String name, final String colour, final double[] xs, final double[] ys)
    {
        return add(new Series(name, colour, xs, ys, true, false));
    }

    SvgChart reference(final String name, final String colour, final double y)
    {
        references.add(new Reference(name, colour, y));
        yMin = Math.min(yMin, y);
        yMax = Math.max(yMax, y);
        return this;
    }

    /** Labels the integer x positions 1..k instead of numeric ticks (for bar charts of named values). */
    SvgChart categories(final String... labels)
    {
        this.categories = labels.clone();
        return this;
    }

    SvgChart yRange(final double min, final double max)
    {
        yMin = Math.min(yMin, min);
        yMax = Math.max(yMax, max);
        return this;
    }

    private SvgChart add(final Series s)
    {
        series.add(s);
        for (int i = 0; i < s.xs.length; i++)
        {
            xMin = Math.min(xMin, s.xs[i]);
            xMax = Math.max(xMax, s.xs[i]);
            yMin = Math.min(yMin, s.ys[i]);
            yMax = Math.max(yMax, s.ys[i]);
        }
        if (s.bars)
        {
            yMin = Math.min(yMin, 0);
        }
        return this;
    }

    String render()
    {
        if (xMax <= xMin)
        {
            xMax = xMin + 1;
        }
        if (series.stream().anyMatch(Series::bars))
        {
            // bars are centred on their x: leave half a slot on either side so none overflows the frame
            final double slot = (xMax - xMin) / Math.max(1, series.stream().mapToInt(x -> x.xs.length).max().orElse(1) - 1);
            xMin -= slot / 2;
            xMax += slot / 2;
        }
        if (yMax <= yMin)
        {
            yMax = yMin + 1;
        }
        final double pad = (yMax - yMin) * 0.05;
        final double y0 = yMin < 0 || yMin - pad > 0 ? yMin - pad : 0;
        final double y1 = yMax + pad;
        final StringBuilder svg = new StringBuilder(8192);
        svg.append(String.format(Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" " +
            "font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, HEIGHT, WIDTH, HEIGHT));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append(text(WIDTH / 2.0, 22, escape(title), "middle", 15, "bold"));
        final int plotW = WIDTH - LEFT - RIGHT;
        final int plotH = HEIGHT - TOP - BOTTOM;
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>%n",
            LEFT, TOP, plotW, plotH));
        for (final double tick : ticks(y0, y1))
        {
            final double y = sy(tick, y0, y1);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>%n",
                LEFT, LEFT + plotW, y, y));
            svg.append(text(LEFT - 6, y + 4, format(tick), "end", 11, "normal"));
        }
        if (categories != null)
        {
            for (int i = 0; i < categories.length; i++)
            {
                svg.append(text(sx(i + 1), TOP + plotH + 16, escape(categories[i]), "middle", 11, "normal"));
            }
        }
        else
        {
            for (final double tick : ticks(xMin, xMax))
            {
                svg.append(text(sx(tick), TOP + plotH + 16, format(tick), "middle", 11, "normal"));
            }
        }
        svg.append(text(LEFT + plotW / 2.0, HEIGHT - 12, escape(xLabel), "middle", 12, "normal"));
        svg.append(String.format(Locale.ROOT,
            "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\">%s</text>%n",
            TOP + plotH / 2.0, TOP + plotH / 2.0, escape(yLabel)));
        for (final Reference r : references)
        {
            final double y = sy(r.y, y0, y1);
            svg.append(String.format(Locale.ROOT,
                "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-dasharray=\"6 4\" stroke-width=\"1.5\"/>%n",
                LEFT, LEFT + plotW, y, y, r.colour));
        }
        for (final Series s : series)
        {
            svg.append(s.bars ? bars(s, y0, y1) : s.dots ? dots(s, y0, y1) : polyline(s, y0, y1));
        }
        int legendY = TOP + 14;
        for (final Series s : series)
        {
            svg.append(legend(s.name, s.colour, legendY, s.bars ? Marker.BAR : s.dots ? Marker.DOT : Marker.LINE));
            legendY += 16;
        }
        for (final Reference r : references)
        {
            svg.append(legend(r.name, r.colour, legendY, Marker.DASHED));
            legendY += 16;
        }
        return svg.append("</svg>\n").toString();
    }

    private String polyline(final Series s, final double y0, final double y1)
    {
        final StringBuilder points = new StringBuilder();
        for (int i = 0; i < s.xs.length; i++)
        {
            points.append(String.format(Locale.ROOT, "%.1f,%.1f ", sx(s.xs[i]), sy(s.ys[i], y0, y1)));
        }
        return "<polyline fill=\"none\" stroke=\"" + s.colour + "\" stroke-width=\"2\" points=\"" + points + "\"/>\n";
    }

    private String dots(final Series s, final double y0, final double y1)
    {
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.xs.length; i++)
        {
            out.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n",
                sx(s.xs[i]), sy(s.ys[i], y0, y1), s.colour));
        }
        return out.toString();
    }

    private String bars(final Series s, final double y0, final double y1)
    {
        final StringBuilder out = new StringBuilder();
        final double slot = (WIDTH - LEFT - RIGHT) / (double)Math.max(1, s.xs.length);
        final double width = Math.max(1.0, Math.min(slot * 0.6, 120));
        for (int i = 0; i < s.xs.length; i++)
        {
            final double top = sy(Math.max(0, s.ys[i]), y0, y1);
            final double base = sy(Math.min(0, s.ys[i]), y0, y1);
            out.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>%n",
                sx(s.xs[i]) - width / 2, top, width, Math.max(0.5, base - top), s.colour));
        }
        return out.toString();
    }

    /** How a series is drawn, so its legend entry is drawn the same way. */
    private enum Marker
    {
        LINE, DASHED, DOT, BAR
    }

    private String legend(final String name, final String colour, final int y, final Marker marker)
    {
        final int x = LEFT + 12;
        final String sample = switch (marker)
        {
            case DOT -> String.format(Locale.ROOT, "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"%s\"/>", x + 11, y - 4,
                colour);
            case BAR -> String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"10\" fill=\"%s\"/>",
                x + 5, y - 9, colour);
            default -> String.format(Locale.ROOT,
                "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"%s\"%s/>", x, x + 22, y - 4,
                y - 4, colour, marker == Marker.DASHED ? "1.5" : "2",
                marker == Marker.DASHED ? " stroke-dasharray=\"6 4\"" : "");
        };
        return sample + text(x + 28, y, escape(name), "start", 11, "normal");
    }

    private double sx(final double x)
    {
        return LEFT + (x - xMin) / (xMax - xMin) * (WIDTH - LEFT - RIGHT);
    }

    private static double sy(final double y, final double y0, final double y1)
    {
        return TOP + (1 - (y - y0) / (y1 - y0)) * (HEIGHT - TOP - BOTTOM);
    }

    private static double[] ticks(final double lo, final double hi)
    {
        final double raw = (hi - lo) / 6;
        final double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        final double step = raw / magnitude >= 5 ? 10 * magnitude : raw / magnitude >= 2 ? 5 * magnitude :
            raw / magnitude >= 1 ? 2 * magnitude : magnitude;
        final double first = Math.ceil(lo / step) * step;
        final int count = (int)Math.floor((hi - first) / step) + 1;
        final double[] ticks = new double[Math.max(0, Math.min(count, 20))];
        for (int i = 0; i < ticks.length; i++)
        {
            ticks[i] = first + i * step;
        }
        return ticks;
    }

    private static String format(final double value)
    {
        return Math.abs(value - Math.rint(value)) < 1e-9 ? Long.toString(Math.round(value)) :
            String.format(Locale.ROOT, "%.2f", value);
    }

    private static String text(final double x, final double y, final String content, final String anchor,
        final int size, final String weight)
    {
        return String.format(Locale.ROOT,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\" font-weight=\"%s\">%s</text>%n",
            x, y, anchor, size, weight, content);
    }

    static String escape(final String text)
    {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
