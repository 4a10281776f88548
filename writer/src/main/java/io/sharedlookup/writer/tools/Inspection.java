package io.sharedlookup.writer.tools;

import io.sharedlookup.internal.store.ContentDigest;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.NamespaceNames;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.writer.store.SkippedRecordsFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

/** {@code inspect}: what a store holds, namespace by namespace, from its manifests and through reader-lib. */
final class Inspection {
    private Inspection() {}

    /**
     * The namespaces of {@code store}, sorted: directories with a valid name and a manifest, and those this user
     * cannot look into (listed, to be described as unreadable, rather than left out unseen).
     */
    static List<String> namespaces(Path store) throws IOException {
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(store)) {
            for (Path d : dirs) {
                String name = d.getFileName().toString();
                if (NamespaceNames.isValid(name)
                        && Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)
                        && (Files.isRegularFile(d.resolve(StoreLayout.MANIFEST), LinkOption.NOFOLLOW_LINKS)
                                || !StoreTools.readable(d))) {
                    out.add(name);
                }
            }
        }
        Collections.sort(out);
        return out;
    }

    static void describe(Path store, SharedLookupStore reader, String namespace, PrintWriter out) throws IOException {
        out.println(namespace);
        Manifest m;
        try {
            m = StoreTools.manifest(store, namespace);
        } catch (StoreTools.ToolException e) {
            out.println("  unreadable   " + e.getMessage());
            return;
        }
        Path dir = new StoreLayout(store).namespaceDir(namespace);
        String entries;
        try {
            long size = reader.lookup(namespace).size();
            entries =
                    size + " of capacity " + m.capacity() + " (" + Math.round(100.0 * size / m.capacity()) + " % full)";
        } catch (RuntimeException e) {
            entries = "cannot be read: " + e.getMessage();
        }
        out.println("  generation   " + m.generation() + " (" + m.dataFile() + ", " + bytes(dir, m.generation())
                + " on disk with its companions)");
        out.println("  entries      " + entries);
        out.println("  topic        " + m.topic() + ", offsets " + m.offsets());
        out.println("  writer       " + m.writerState().name().toLowerCase() + ", caught up " + m.caughtUp()
                + ", published " + Instant.ofEpochMilli(m.publishedAtMillis()) + ", offsets current as of "
                + Instant.ofEpochMilli(m.updatedAtMillis()));
        out.println("  freshness    " + freshness(reader, namespace));
        out.println("  content      version " + m.contentVersion() + ", digest "
                + (m.contentDigest() == null ? "none (written before digests)" : ContentDigest.hex(m.contentDigest())));
        if (!m.attributes().isEmpty()) {
            out.println("  attributes   " + m.attributes());
        }
        skipped(dir, out);
    }

    /**
     * The last records the writer skipped, from the file it keeps in the namespace directory (inspect runs in another
     * process, maybe after the writer stopped: a file outlives both). Oldest first; none said as such.
     */
    private static void skipped(Path dir, PrintWriter out) {
        List<String> lines;
        try {
            lines = SkippedRecordsFile.read(dir);
        } catch (IOException e) {
            out.println("  skipped      cannot be read: " + e);
            return;
        }
        if (lines.isEmpty()) {
            out.println("  skipped      none");
            return;
        }
        out.println("  skipped      the last " + lines.size() + " (partition, offset, time, reason):");
        for (String line : lines) {
            String[] f = line.split("\t", 4);
            out.println("    "
                    + (f.length == 4 ? "partition " + f[0] + " offset " + f[1] + " at " + f[2] + ": " + f[3] : line));
        }
    }

    /**
     * What a reader sees of the namespace's writer and freshness ({@code Lookup.status()}): at a reader's first look,
     * a heartbeat stamped within the last 1.5 s counts as alive.
     */
    private static String freshness(SharedLookupStore reader, String namespace) {
        try {
            return reader.lookup(namespace).status().toString();
        } catch (RuntimeException e) {
            return "cannot be read: " + e.getMessage();
        }
    }

    /** The size of a generation's files (data, reverse index, sequence files), human-readable. */
    private static String bytes(Path dir, long generation) throws IOException {
        long total = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (StoreLayout.generationOfAnyFile(f.getFileName().toString()).orElse(-1) == generation) {
                    total += Files.size(f);
                }
            }
        }
        return total < 1 << 20
                ? String.format("%.1f KiB", total / 1024.0)
                : String.format("%.1f MiB", total / 1048576.0);
    }
}
