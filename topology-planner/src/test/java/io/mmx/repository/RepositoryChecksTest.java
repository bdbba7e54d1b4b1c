package io.mmx.repository;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checks over the whole repository, run with the planner's tests because it is built first: the
 * links in README.md and docs/*.md resolve inside the repository (files and heading anchors), and
 * no main code reports errors with printStackTrace.
 */
class RepositoryChecksTest
{
    // [text](target) outside code; the target ends at the first space or closing parenthesis.
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");
    private static final Path ROOT = repositoryRoot();

    @Test
    void everyLinkInTheDocsResolvesInsideTheRepository() throws IOException
    {
        final List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs")))
        {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        final List<String> broken = new ArrayList<>();
        int checked = 0;
        for (final Path page : pages)
        {
            for (final String target : links(page))
            {
                checked++;
                final String problem = problem(page, target);
                if (problem != null)
                {
                    broken.add(ROOT.relativize(page) + ": (" + target + ") " + problem);
                }
            }
        }
        assertTrue(checked > 10, "found only " + checked + " links: is the link pattern still right?");
        assertEquals(List.of(), broken, "links that do not resolve");
    }

    @Test
    void theDocsCiteNothingOutsideTheRepository() throws IOException
    {
        // Design notes kept beside the repository, issue numbers and one machine's paths mean nothing to a reader.
        final Pattern outside = Pattern.compile("DESIGN\\.md|DESIGN §|\\.\\./shared/|/work/|\\b[Ii]ssue #?\\d+");
        final List<String> found = new ArrayList<>();
        final List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs")))
        {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        for (final Path page : pages)
        {
            final List<String> lines = Files.readAllLines(page);
            for (int i = 0; i < lines.size(); i++)
            {
                if (outside.matcher(lines.get(i)).find())
                {
                    found.add(ROOT.relativize(page) + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        }
        assertEquals(List.of(), found, "cite the repository's own docs instead");
    }

    @Test
    void theLinkCheckCatchesWhatItShould() throws IOException
    {
        final Path readme = ROOT.resolve("README.md");
        assertEquals(null, problem(readme, "docs/topo.md"));
        assertTrue(problem(readme, "docs/nope.md") != null);
        assertTrue(problem(readme, "docs/topo.md#no-such-heading") != null);
        assertTrue(problem(readme, "../outside.md") != null);
        assertEquals("the-quantity", slug("The quantity"));
        assertEquals("topo-the-planner", slug("`topo`: the planner"));
        assertEquals("what-probable-means-and-when-it-applies", slug("What \"probable\" means, and when it applies"));
    }

    @Test
    void noMainCodeReportsErrorsWithPrintStackTrace() throws IOException
    {
        final List<String> found = new ArrayList<>();
        final List<Path> mainTrees = new ArrayList<>();
        try (Stream<Path> modules = Files.list(ROOT))
        {
            modules.map(m -> m.resolve("src").resolve("main")).filter(Files::isDirectory).forEach(mainTrees::add);
        }
        assertTrue(mainTrees.size() >= 5, "found the main sources of only " + mainTrees);
        for (final Path tree : mainTrees)
        {
            try (Stream<Path> files = Files.walk(tree))
            {
                files.filter(p -> p.toString().endsWith(".java")).forEach(p ->
                {
                    try
                    {
                        if (Files.readString(p).contains(".printStackTrace("))
                        {
                            found.add(ROOT.relativize(p).toString());
                        }
                    }
                    catch (final IOException ex)
                    {
                        found.add(p + " (unreadable: " + ex.getMessage() + ")");
                    }
                });
            }
        }
        assertEquals(List.of(), found, "report errors with a sentence naming the problem and the fix");
    }

    /** Why {@code target}, linked from {@code page}, does not resolve; null if it does. */
    private static String problem(final Path page, final String target) throws IOException
    {
        if (target.matches("^[a-z]+:.*"))
        {
            return target.startsWith("http://") || target.startsWith("https://") ? null :
                "is neither a relative link nor a web address";
        }
        final int hash = target.indexOf('#');
        final String pathPart = hash < 0 ? target : target.substring(0, hash);
        final String anchor = hash < 0 ? null : target.substring(hash + 1);
        final Path file = pathPart.isEmpty() ? page : page.getParent().resolve(pathPart).normalize();
        if (!file.startsWith(ROOT))
        {
            return "points outside the repository";
        }
        if (!Files.exists(file))
        {
            return "names a file that does not exist";
        }
        if (anchor != null && !(file.toString().endsWith(".md") && anchors(file).contains(anchor)))
        {
            return "names a heading that " + ROOT.relativize(file) + " does not have";
        }
        return null;
    }

    /** Link targets outside fenced code blocks and inline code. */
    private static List<String> links(final Path page) throws IOException
    {
        final List<String> targets = new ArrayList<>();
        boolean fenced = false;
        for (final String line : Files.readAllLines(page))
        {
            if (line.strip().startsWith("```"))
            {
                fenced = !fenced;
                continue;
            }
            if (fenced)
            {
                continue;
            }
            final Matcher m = LINK.matcher(INLINE_CODE.matcher(line).replaceAll(""));
            while (m.find())
            {
                targets.add(m.group(1));
            }
        }
        return targets;
    }

    /** The anchors GitHub gives a page's headings, duplicates numbered -1, -2, ... */
    private static Set<String> anchors(final Path page) throws IOException
    {
        final Set<String> anchors = new HashSet<>();
        final Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (final String line : Files.readAllLines(page))
        {
            if (line.strip().startsWith("```"))
            {
                fenced = !fenced;
            }
            else if (!fenced && line.matches("^#{1,6} .*"))
            {
                final String base = slug(line.replaceFirst("^#{1,6} ", ""));
                final int count = seen.merge(base, 1, Integer::sum);
                anchors.add(count == 1 ? base : base + "-" + (count - 1));
            }
        }
        return anchors;
    }

    // GitHub's rule: lower case, drop everything but letters, digits, spaces, hyphens and underscores,
    // spaces become hyphens.
    static String slug(final String heading)
    {
        return heading.strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }

    private static Path repositoryRoot()
    {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !(Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs"))))
        {
            dir = dir.getParent();
        }
        if (dir == null)
        {
            throw new IllegalStateException("no README.md and docs/ above " + Path.of("").toAbsolutePath() +
                ": run the tests inside the repository");
        }
        return dir;
    }
}
