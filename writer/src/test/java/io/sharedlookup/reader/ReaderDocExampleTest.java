package io.sharedlookup.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.testing.TestStores;
import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

/**
 * The complete example of docs/reader.md, section "A complete example", is what a user copies: its {@code Main.java}
 * is compiled against reader-lib's classes and run in a JVM of its own with reader-lib and slf4j-api alone on the class
 * path, as a user's program runs, against a store this test writes; its output must be the one the page shows. Its
 * {@code pom.xml} must name reader-lib's coordinates as reader-lib/pom.xml gives them, so that it resolves what the
 * page's install command installs. A renamed method, a changed output or a bumped version breaks this test, not the
 * user's first try.
 */
class ReaderDocExampleTest {
    private static final String MAIN_HEADING = "### src/main/java/Main.java";
    private static final String POM_HEADING = "### pom.xml";
    private static final String RUN_HEADING = "### Run it";

    @TempDir
    Path tmp;

    @Test
    void mainJavaOfTheDocs_compilesAgainstReaderLib_andPrintsWhatTheDocsShow() throws Exception {
        String md = Files.readString(repoFile("docs/reader.md"));
        String source = fencedBlock(md, MAIN_HEADING, "java");
        String expectedOutput = fencedBlock(md, RUN_HEADING, "text");

        Path sources = Files.createDirectories(tmp.resolve("src"));
        Path classes = Files.createDirectories(tmp.resolve("classes"));
        Path mainJava = Files.writeString(sources.resolve("Main.java"), source);
        List<String> readerClassPath = readerLibAndSlf4jApi();
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter diagnostics = new StringWriter();
        boolean compiled = javac.getTask(
                        diagnostics,
                        null,
                        null,
                        List.of(
                                "--release",
                                "17",
                                "-Xlint:all",
                                "-classpath",
                                String.join(File.pathSeparator, readerClassPath),
                                "-d",
                                classes.toString()),
                        null,
                        javac.getStandardFileManager(null, null, StandardCharsets.UTF_8)
                                .getJavaFileObjects(mainJava))
                .call();
        assertThat(compiled)
                .as("docs/reader.md's Main.java compiles against reader-lib:%n%s", diagnostics)
                .isTrue();

        Path store = tmp.resolve("store");
        try (TestStores.Published published = TestStores.publish(
                store, "users", Map.of("42", "Ada Lovelace", "43", "Grace Hopper", "44", "Edsger Dijkstra"))) {
            List<String> classPath = new ArrayList<>(readerClassPath);
            classPath.add(0, classes.toString());
            Process main = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-Xmx64m",
                            "-cp",
                            String.join(File.pathSeparator, classPath),
                            "Main",
                            store.toString(),
                            "users")
                    .start();
            // Both streams read at once, so that neither can fill its pipe and stall the program.
            CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> readAll(main.getErrorStream()));
            String stdout = readAll(main.getInputStream());
            assertThat(main.waitFor(60, TimeUnit.SECONDS))
                    .as("Main ends within 60 s")
                    .isTrue();
            assertThat(main.exitValue())
                    .as("exit status; stdout:%n%s%nstderr:%n%s", stdout, stderr.get())
                    .isZero();
            assertThat(stdout.strip().lines())
                    .as("stderr:%n%s", stderr.get())
                    .containsExactlyElementsOf(expectedOutput.strip().lines().toList());
        }
    }

    @Test
    void pomXmlOfTheDocs_dependsOnReaderLibByItsOwnCoordinates() throws Exception {
        String md = Files.readString(repoFile("docs/reader.md"));
        XPath xpath = XPathFactory.newInstance().newXPath();
        Document readerPom = parse(Files.readString(repoFile("reader-lib/pom.xml")));
        String groupId = xpath.evaluate("/project/groupId", readerPom);
        groupId = groupId.isEmpty() ? xpath.evaluate("/project/parent/groupId", readerPom) : groupId;
        String version = xpath.evaluate("/project/version", readerPom);
        version = version.isEmpty() ? xpath.evaluate("/project/parent/version", readerPom) : version;
        String artifactId = xpath.evaluate("/project/artifactId", readerPom);

        Document docPom = parse(fencedBlock(md, POM_HEADING, "xml"));
        NodeList dependencies =
                (NodeList) xpath.evaluate("/project/dependencies/dependency", docPom, XPathConstants.NODESET);
        assertThat(dependencies.getLength())
                .as("the example depends on reader-lib alone")
                .isEqualTo(1);
        assertThat(List.of(
                        xpath.evaluate("groupId", dependencies.item(0)),
                        xpath.evaluate("artifactId", dependencies.item(0)),
                        xpath.evaluate("version", dependencies.item(0))))
                .as("docs/reader.md's pom.xml names reader-lib/pom.xml's coordinates")
                .containsExactly(groupId, artifactId, version);
        // The install step says what it installs, and installs reader-lib with the parent POM its pom names.
        assertThat(md)
                .contains("./mvnw -B -q -pl reader-lib -am install -DskipTests")
                .contains(groupId + ":" + artifactId + ":" + version);
    }

    /** The body of the first fenced block of language {@code lang} under {@code heading}, before the next heading. */
    static String fencedBlock(String md, String heading, String lang) {
        List<String> lines = md.lines().toList();
        int at = lines.indexOf(heading);
        if (at < 0) {
            throw new IllegalStateException("docs/reader.md has no heading '" + heading + "': keep the example's "
                    + "headings, " + ReaderDocExampleTest.class.getSimpleName() + " finds its blocks by them");
        }
        for (int i = at + 1; i < lines.size() && !lines.get(i).startsWith("#"); i++) {
            if (lines.get(i).equals("```" + lang)) {
                StringBuilder body = new StringBuilder();
                for (int j = i + 1; j < lines.size() && !lines.get(j).equals("```"); j++) {
                    body.append(lines.get(j)).append('\n');
                }
                return body.toString();
            }
        }
        throw new IllegalStateException("docs/reader.md has no ```" + lang + " block under '" + heading + "'");
    }

    /** reader-lib (its classes or its jar) and slf4j-api from this test's class path: what a user's program has. */
    private static List<String> readerLibAndSlf4jApi() {
        List<String> cp = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String unix = entry.replace('\\', '/');
            String name = Path.of(entry).getFileName().toString();
            if (unix.endsWith("reader-lib/target/classes")
                    || name.matches("shared-lookup-reader-[^-]+.*\\.jar") && !name.contains("tests")
                    || name.startsWith("slf4j-api-")) {
                cp.add(entry);
            }
        }
        assertThat(cp).as("reader-lib and slf4j-api on the test class path").hasSize(2);
        return cp;
    }

    private static Path repoFile(String relative) {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(relative))) {
                return dir.resolve(relative);
            }
        }
        throw new IllegalStateException(
                relative + " not found above " + Path.of("").toAbsolutePath());
    }

    private static Document parse(String xml) throws Exception {
        return DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(new java.io.ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    private static String readAll(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
