package io.mmx.perf.niccache;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small self-contained SVG line chart with a base-2 logarithmic x axis: one polyline with
 * markers per series, a legend, and labelled ticks. No plotting library, no scripts, no fonts
 * beyond the viewer's sans-serif.
 */
final class SvgPlot
{
    private static final int WIDTH = 760;
    private static final int HEIGHT = 420;
    private static final int LEFT = 80;
    private static final int RIGHT = 150;
    private static final int TOP = 40;
    private static final int BOTTOM = 55;
    private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

    private record Series(String name, double[] xs, double[] ys)
    {
    }

    private record Tick(double x, String label)
    {
    }

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final List<Series> series = new ArrayList<>();
    private final List<Tick> xTicks = new ArrayList<>();
    private double yMax = 0;

    SvgPlot(final String title, final String xLabel, final String yLabel)
    {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
    }

    SvgPlot series(final String name, final double[] xs, final double[] ys)
    {
        if (xs.length != ys.length)
        {
            throw new IllegalArgumentException("series '" + name + "' has " + xs.length + " x and " + ys.length + " y");
        }
        series.add(new Series(name, xs.clone(), ys.clone()));
        for (final double y : ys)
        {
            yMax = Math.max(yMax, y);
        }
        return this;
    }

    SvgPlot xTick(final double x, final String label)
    {
        xTicks.add(new Tick(x, label));
        return this;
    }

    String render()
    {
        double xMin = Double.POSITIVE_INFINITY;
        double xMax = Double.NEGATIVE_INFINITY;
        for (final Series s : series)
        {
            for (final double x : s.xs)
            {
                xMin = Math.min(xMin, log2(x));
                xMax = Math.max(xMax, log2(x));
            }
        }
        if (xMax <= xMin)
        {
            xMax = xMin + 1;
        }
        final double top = yMax <= 0 ? 1 : niceCeiling(yMax);
        final double plotW = WIDTH - LEFT - RIGHT;
        final double plotH = HEIGHT - TOP - BOTTOM;
        final double lo = xMin;
        final double span = xMax - xMin;
        final StringBuilder svg = new StringBuilder(8192);
        svg.append(String.format(Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" " +
            "font-family=\"sans-serif\" font-size=\"12\">\n", WIDTH, HEIGHT, WIDTH, HEIGHT));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append(text(WIDTH / 2.0, 22, escape(title), "middle", 15));
        svg.append(String.format(Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#444\"/>\n",
            LEFT, TOP, plotW, plotH));
        for (int i = 0; i <= 5; i++)
        {
            final double value = top * i / 5;
            final double y = TOP + plotH - plotH * i / 5;
            svg.append(String.format(Locale.ROOT,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", LEFT, y, LEFT + plotW, y));
            svg.append(text(LEFT - 6, y + 4, format(value), "end", 11));
        }
        for (final Tick tick : xTicks)
        {
            final double x = LEFT + plotW * (log2(tick.x) - lo) / span;
            svg.append(String.format(Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x, TOP, x, TOP + plotH));
            svg.append(text(x, TOP + plotH + 16, escape(tick.label), "middle", 11));
        }
        svg.append(text(LEFT + plotW / 2, HEIGHT - 12, escape(xLabel), "middle", 12));
        svg.append(String.format(Locale.ROOT,
            "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 18 %.1f)\">%s</text>\n",
            TOP + plotH / 2, TOP + plotH / 2, escape(yLabel)));
        for (int s = 0; s < series.size(); s++)
        {
            final Series line = series.get(s);
            final String colour = COLOURS[s % COLOURS.length];
            final StringBuilder points = new StringBuilder();
            for (int i = 0; i < line.xs.length; i++)
            {
                final double x = LEFT + plotW * (log2(line.xs[i]) - lo) / span;
                final double y = TOP + plotH - plotH * line.ys[i] / top;
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                svg.append(String.format(Locale.ROOT,
                    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", x, y, colour));
            }
            svg.append(String.format(Locale.ROOT,
                "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>\n",
                colour, points.toString().trim()));
            final double ly = TOP + 14 + 18 * s;
            svg.append(String.format(Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                LEFT + plotW + 12, ly - 4, LEFT + plotW + 32, ly - 4, colour));
            svg.append(text(LEFT + plotW + 36, ly, escape(line.name), "start", 11));
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static double log2(final double x)
    {
        return Math.log(x) / Math.log(2);
    }

    /** The smallest of 1, 2, 2.5, 5 times a power of ten at or above {@code v}. */
    private static double niceCeiling(final double v)
    {
        final double power = Math.pow(10, Math.floor(Math.log10(v)));
        for (final double step : new double[]{1, 2, 2.5, 5, 10})
        {
            if (step * power >= v)
            {
                return step * power;
            }
        }
        return 10 * power;
    }

    private static String format(final double v)
    {
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String text(final double x, final double y, final String body, final String anchor, final int size)
    {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\">%s</text>\n",
            x, y, anchor, size, body);
    }

    private static String escape(final String s)
    {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
