package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * A manifest is the one file a reader trusts to describe the others, so a damaged one must be refused as what it is:
 * whatever a disk, a hand edit or another release did to its text, {@link Manifest#parse} answers a manifest or
 * throws a {@link StoreFormatException} naming the file, in one line — never another exception, whose bare message
 * ("integer overflow", "For input string") would say neither which file nor what to do.
 */
class DamagedManifestPropertyTest {
    private static final Path FILE = Path.of("/store/users/manifest.properties");

    /** One edit of the manifest's text: at line {@code line}, of kind {@code kind}, with {@code text}. */
    record Edit(int line, int kind, String text) {}

    @Provide
    Arbitrary<List<Edit>> edits() {
        Arbitrary<String> text = Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(12),
                Arbitraries.strings()
                        .withCharRange('0', '9')
                        .withChars('-', ':', ',', ' ')
                        .ofMinLength(1)
                        .ofMaxLength(25),
                Arbitraries.of(
                        "4294967296",
                        "9223372036854775807",
                        "9223372036854775808",
                        "-1",
                        "0",
                        "",
                        "\\u00",
                        "\\",
                        "=",
                        ":",
                        "1:",
                        ":2",
                        "open",
                        "NaN",
                        "1e3",
                        "0x10"));
        Arbitrary<Edit> edit = Combinators.combine(
                        Arbitraries.integers().between(0, 60),
                        Arbitraries.integers().between(0, 4),
                        text)
                .as(Edit::new);
        return edit.list().ofMinSize(1).ofMaxSize(6);
    }

    @Property(tries = 2000)
    void aDamagedManifest_isParsedOrRefusedAsCorruptInOneLine(@ForAll("edits") List<Edit> edits) {
        String damaged = apply(ManifestTest.sample().toText(), edits);
        try {
            Manifest.parse(damaged, FILE);
        } catch (StoreFormatException e) {
            assertThat(e.getMessage()).contains(FILE.toString()).doesNotContain("\n");
        }
    }

    /** Applies the edits: replace a value, cut a line short, delete a line, insert a line, or cut the text off. */
    private static String apply(String text, List<Edit> edits) {
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        for (Edit e : edits) {
            int i = e.line() % lines.size();
            String line = lines.get(i);
            int eq = line.indexOf('=');
            switch (e.kind()) {
                case 0 -> lines.set(i, eq < 0 ? line + e.text() : line.substring(0, eq + 1) + e.text());
                case 1 ->
                    lines.set(
                            i,
                            line.substring(0, Math.min(line.length(), e.text().length())));
                case 2 -> lines.remove(i);
                case 3 -> lines.add(i, e.text());
                default -> {
                    String joined = String.join("\n", lines);
                    int cut = Math.floorMod(e.text().hashCode(), joined.length() + 1);
                    lines = new ArrayList<>(List.of(joined.substring(0, cut).split("\n", -1)));
                }
            }
            if (lines.isEmpty()) {
                lines.add("");
            }
        }
        return String.join("\n", lines);
    }
}
