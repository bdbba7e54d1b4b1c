package io.mmx.planner.io;

import io.mmx.planner.graph.Graph;
import io.mmx.planner.graph.InvalidGraphException;

import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the first {@code <graph>} of a GraphML document. Nodes are numbered 0..n-1 in the
 * order they appear; edges are taken as undirected. In a directed document the two
 * directions of one pair are merged; in an undirected one a repeated pair is an error.
 * DTDs and external entities are refused.
 */
public final class GraphMlFormat
{
    private GraphMlFormat()
    {
    }

    /** Reads a graph; {@code source} names the file in error messages. */
    public static Graph read(final InputStream in, final String source)
    {
        final XMLInputFactory factory = XMLInputFactory.newFactory();
        factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        final Map<String, Integer> ids = new HashMap<>();
        final List<String[]> edges = new ArrayList<>();
        boolean directed = false;
        boolean inGraph = false;
        boolean sawGraph = false;
        try
        {
            final XMLStreamReader xml = factory.createXMLStreamReader(in);
            while (xml.hasNext())
            {
                final int event = xml.next();
                if (event == XMLStreamConstants.START_ELEMENT)
                {
                    final String name = xml.getLocalName();
                    if ("graph".equals(name) && !sawGraph)
                    {
                        sawGraph = true;
                        inGraph = true;
                        directed = "directed".equals(xml.getAttributeValue(null, "edgedefault"));
                    }
                    else if (inGraph && "node".equals(name))
                    {
                        final String id = required(xml, "id", "node", source);
                        if (ids.putIfAbsent(id, ids.size()) != null)
                        {
                            throw new GraphFileException(source + ":" + xml.getLocation().getLineNumber() +
                                ": node id '" + id + "' is declared twice: give each node a unique id");
                        }
                    }
                    else if (inGraph && "edge".equals(name))
                    {
                        edges.add(new String[] {
                            required(xml, "source", "edge", source),
                            required(xml, "target", "edge", source),
                            Integer.toString(xml.getLocation().getLineNumber())});
                    }
                }
                else if (event == XMLStreamConstants.END_ELEMENT && "graph".equals(xml.getLocalName()))
                {
                    inGraph = false;
                }
            }
        }
        catch (final XMLStreamException ex)
        {
            throw new GraphFileException(source + ": malformed or truncated GraphML: " + ex.getMessage() +
                ": fix the XML (every element closed) or export the graph again", ex);
        }
        if (!sawGraph)
        {
            throw new GraphFileException(source + ": no <graph> element: a GraphML file holds " +
                "<graphml><graph edgedefault=\"undirected\"><node id=.../><edge source=... target=.../></graph></graphml>");
        }
        final Graph.Builder builder = Graph.builder(ids.size());
        final Set<Long> seen = new HashSet<>();
        for (final String[] edge : edges)
        {
            final Integer u = ids.get(edge[0]);
            final Integer v = ids.get(edge[1]);
            if (u == null || v == null)
            {
                throw new GraphFileException(source + ":" + edge[2] + ": edge " + edge[0] + " -> " + edge[1] +
                    " names an undeclared node '" + (u == null ? edge[0] : edge[1]) + "': declare it with <node id=...>");
            }
            final long key = (long)Math.min(u, v) << 32 | Math.max(u, v);
            if (!seen.add(key))
            {
                if (directed && u.intValue() != v.intValue())
                {
                    continue;
                }
                throw new GraphFileException(source + ":" + edge[2] + ": edge " + edge[0] + " - " + edge[1] +
                    " appears more than once: list each edge once");
            }
            try
            {
                builder.addEdge(u, v);
            }
            catch (final InvalidGraphException ex)
            {
                throw new GraphFileException(source + ":" + edge[2] + ": " + ex.getMessage());
            }
        }
        return builder.build();
    }

    private static String required(final XMLStreamReader xml, final String attribute, final String element,
        final String source)
    {
        final String value = xml.getAttributeValue(null, attribute);
        if (value == null)
        {
            throw new GraphFileException(source + ":" + xml.getLocation().getLineNumber() + ": <" + element +
                "> without the '" + attribute + "' attribute");
        }
        return value;
    }
}
