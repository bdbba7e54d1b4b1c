package io.mmx.planner.io;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.*;

class EdgeListFormatTest
{
    private static Graph read(final String text) throws IOException
    {
        return EdgeListFormat.read(new BufferedReader(new StringReader(text)), "g.txt");
    }

    private static String error(final String text)
    {
        return assertThrows(GraphFileException.class, () -> read(text)).getMessage();
    }

    @Test
    void readsTriangleWithCommentsAndBlankLines() throws IOException
    {
        final Graph g = read("# a triangle\n3 3\n0 1\n\n1 2\n2 0\n");
        assertEquals(3, g.n());
        assertEquals(3, g.edgeCount());
        assertEquals(2, g.regularDegree());
    }

    @Test
    void roundTrips() throws IOException
    {
        final Graph g = read("4 3\n0 1\n1 2\n2 3\n");
        final StringWriter out = new StringWriter();
        EdgeListFormat.write(g, out);
        assertEquals(g, read(out.toString()));
    }

    @Test
    void rejectsEachBadInputWithOneClearMessage()
    {
        assertTrue(error("").contains("empty edge list"));
        assertTrue(error("3 3\n0 1\n1 2\n").contains("truncated"), "truncated");
        assertTrue(error("3 1\n0 1\n1 2\n").contains("more edges than"), "extra");
        assertTrue(error("3 2\n0 1\n1 1\n").contains("self-loop"), "self-loop");
        assertTrue(error("3 2\n0 1\n1 0\n").contains("more than once"), "duplicate");
        assertTrue(error("3 1\n0 3\n").contains("outside 0..2"), "range");
        assertTrue(error("3 1\n0 x\n").contains("g.txt:2"), "line number");
        assertTrue(error("3 5\n").contains("impossible"), "count");
    }
}
