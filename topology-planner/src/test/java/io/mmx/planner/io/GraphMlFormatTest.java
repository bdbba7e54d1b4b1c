package io.mmx.planner.io;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.*;

class GraphMlFormatTest
{
    private static Graph read(final String xml)
    {
        return GraphMlFormat.read(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)), "g.graphml");
    }

    private static String doc(final String edgedefault, final String body)
    {
        return "<?xml version=\"1.0\"?><graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">" +
            "<graph id=\"G\" edgedefault=\"" + edgedefault + "\">" + body + "</graph></graphml>";
    }

    @Test
    void readsUndirectedPathNumberingNodesInOrder()
    {
        final Graph g = read(doc("undirected",
            "<node id=\"a\"/><node id=\"b\"/><node id=\"c\"/><edge source=\"a\" target=\"b\"/><edge source=\"c\" target=\"b\"/>"));
        assertEquals(3, g.n());
        assertTrue(g.hasEdge(0, 1));
        assertTrue(g.hasEdge(1, 2));
        assertFalse(g.hasEdge(0, 2));
    }

    @Test
    void mergesBothDirectionsOfADirectedPair()
    {
        final Graph g = read(doc("directed",
            "<node id=\"0\"/><node id=\"1\"/><edge source=\"0\" target=\"1\"/><edge source=\"1\" target=\"0\"/>"));
        assertEquals(1, g.edgeCount());
    }

    @Test
    void rejectsBadDocuments()
    {
        assertThrows(GraphFileException.class, () -> read(doc("undirected",
            "<node id=\"a\"/><edge source=\"a\" target=\"a\"/>")), "self-loop");
        assertThrows(GraphFileException.class, () -> read(doc("undirected",
            "<node id=\"a\"/><node id=\"b\"/><edge source=\"a\" target=\"b\"/><edge source=\"b\" target=\"a\"/>")));
        final String undeclared = assertThrows(GraphFileException.class, () -> read(doc("undirected",
            "<node id=\"a\"/><edge source=\"a\" target=\"z\"/>"))).getMessage();
        assertTrue(undeclared.contains("'z'"), undeclared);
        final String truncated = assertThrows(GraphFileException.class,
            () -> read(doc("undirected", "<node id=\"a\"/>").substring(0, 120))).getMessage();
        assertTrue(truncated.contains("malformed or truncated"), truncated);
        assertThrows(GraphFileException.class, () -> read("<graphml/>"));
    }

    @Test
    void refusesExternalEntities()
    {
        final String xxe = "<?xml version=\"1.0\"?><!DOCTYPE g [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>" +
            "<graphml><graph><node id=\"&x;\"/></graph></graphml>";
        assertThrows(GraphFileException.class, () -> read(xxe));
    }
}
