package io.mmx.planner.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.PrintWriter;

/** Prints JSON for machines: pretty, one document per command. */
final class JsonOutput
{
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonOutput()
    {
    }

    static void print(final PrintWriter out, final JsonNode node)
    {
        try
        {
            out.println(MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(node));
            out.flush();
        }
        catch (final JsonProcessingException ex)
        {
            throw new IllegalStateException("cannot print JSON", ex);
        }
    }
}
