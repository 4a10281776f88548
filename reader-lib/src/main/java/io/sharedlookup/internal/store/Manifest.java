package io.sharedlookup.internal.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Collections;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The published state of a namespace: which generation file readers use, how to read it, and what it reflects. The
 * writer replaces it atomically (a temporary file renamed over {@value StoreLayout#MANIFEST}), so a reader sees either
 * the old or the new manifest, never a mix.
 *
 * @param formatVersion  the store format; readers refuse versions they do not know
 * @param generation     increases by one for every new generation file
 * @param dataFile       the generation's file name, relative to the namespace directory
 * @param capacity       the entry count the generation was sized for (Chronicle's {@code entries()})
 * @param topic          the Kafka topic the namespace is built from (empty when not from Kafka)
 * @param offsets        per partition, the next offset to consume: what the generation reflects
 * @param contentVersion changes whenever readable content changes; never repeats within a namespace
 * @param caughtUp       whether the writer had reached the end offsets it captured at start
 * @param writerState    {@link WriterState#OPEN} while a writer changes the file; {@link WriterState#CLOSED} after a
 *                       clean stop, so that only then the next writer may resume from {@code offsets}
 * @param attributes     further writer options recorded with the namespace (for example a reverse index)
 * @param layout         how to read the generation file without Chronicle Map (format version 2)
 * @param reverseLayout  the same for its reverse index; null when the generation has none
 * @param contentDigest  the {@link ContentDigest} of the generation's entries at {@code offsets}; null in manifests
 *                       written before the digest existed
 */
public record Manifest(
        int formatVersion,
        String namespace,
        long generation,
        String dataFile,
        long capacity,
        String topic,
        Map<Integer, Long> offsets,
        long contentVersion,
        boolean caughtUp,
        WriterState writerState,
        long publishedAtMillis,
        long updatedAtMillis,
        Map<String, String> attributes,
        MapLayout layout,
        MapLayout reverseLayout,
        Long contentDigest) {

    /**
     * The only format version this code reads and writes. Version 1 stores were read through Chronicle Map; version 2
     * publishes each file's layout (see {@link MapLayout}) and a sequence file, so readers need no Chronicle.
     */
    public static final int FORMAT_VERSION = 2;

    private static final String LAYOUT = "layout.";
    private static final String REVERSE_LAYOUT = "reverse.layout.";

    public enum WriterState {
        OPEN,
        CLOSED
    }

    public Manifest {
        offsets = Collections.unmodifiableMap(new TreeMap<>(offsets));
        attributes = Collections.unmodifiableMap(new TreeMap<>(attributes));
        java.util.Objects.requireNonNull(layout, "layout");
    }

    /** Progress of the same generation: offsets applied, the content version and digest they give. */
    public Manifest withOffsets(
            Map<Integer, Long> newOffsets,
            long newContentVersion,
            boolean newCaughtUp,
            Long newContentDigest,
            long now) {
        return new Manifest(
                formatVersion,
                namespace,
                generation,
                dataFile,
                capacity,
                topic,
                newOffsets,
                newContentVersion,
                newCaughtUp,
                writerState,
                publishedAtMillis,
                now,
                attributes,
                layout,
                reverseLayout,
                newContentDigest);
    }

    public Manifest withWriterState(WriterState state, long now) {
        return new Manifest(
                formatVersion,
                namespace,
                generation,
                dataFile,
                capacity,
                topic,
                offsets,
                contentVersion,
                caughtUp,
                state,
                publishedAtMillis,
                now,
                attributes,
                layout,
                reverseLayout,
                contentDigest);
    }

    /** The same manifest with attribute {@code name} set to {@code value}. */
    public Manifest withAttribute(String name, String value, long now) {
        Map<String, String> with = new TreeMap<>(attributes);
        with.put(name, value);
        return new Manifest(
                formatVersion,
                namespace,
                generation,
                dataFile,
                capacity,
                topic,
                offsets,
                contentVersion,
                caughtUp,
                writerState,
                publishedAtMillis,
                now,
                with,
                layout,
                reverseLayout,
                contentDigest);
    }

    /** Serialises to the properties text stored on disk. */
    public String toText() {
        Properties p = new Properties();
        p.setProperty("format.version", Integer.toString(formatVersion));
        p.setProperty("namespace", namespace);
        p.setProperty("generation", Long.toString(generation));
        p.setProperty("data.file", dataFile);
        p.setProperty("capacity", Long.toString(capacity));
        p.setProperty("topic", topic);
        StringBuilder offs = new StringBuilder();
        offsets.forEach((partition, offset) -> {
            if (offs.length() > 0) {
                offs.append(',');
            }
            offs.append(partition).append(':').append(offset);
        });
        p.setProperty("source.offsets", offs.toString());
        p.setProperty("content.version", Long.toString(contentVersion));
        p.setProperty("caught.up", Boolean.toString(caughtUp));
        p.setProperty("writer.state", writerState.name().toLowerCase());
        p.setProperty("published.at", Long.toString(publishedAtMillis));
        p.setProperty("updated.at", Long.toString(updatedAtMillis));
        attributes.forEach((k, v) -> p.setProperty("attr." + k, v));
        Map<String, String> layouts = new TreeMap<>();
        layout.writeTo(LAYOUT, layouts);
        if (reverseLayout != null) {
            reverseLayout.writeTo(REVERSE_LAYOUT, layouts);
        }
        layouts.forEach(p::setProperty);
        if (contentDigest != null) {
            p.setProperty("content.digest", ContentDigest.hex(contentDigest));
        }
        StringWriter out = new StringWriter();
        try {
            p.store(out, "shared-lookup namespace manifest: written by the writer, do not edit");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return out.toString();
    }

    /** Parses manifest text; {@code source} names the file in error messages. */
    public static Manifest parse(String text, Path source) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException | IllegalArgumentException e) {
            throw corrupt(source, e.getMessage(), e);
        }
        String version = p.getProperty("format.version");
        if (version == null) {
            throw corrupt(source, "no format.version", null);
        }
        if (version.trim().equals("1")) {
            throw new OldFormatException(
                    source, p.getProperty("generation", "0").trim());
        }
        if (!version.trim().equals(Integer.toString(FORMAT_VERSION))) {
            String message = "Unsupported store format version " + version.trim() + " in " + source
                    + ": this shared-lookup reads version " + FORMAT_VERSION
                    + "; use a shared-lookup release that matches the writer";
            throw isNewer(version.trim()) ? new NewerFormatException(message) : new StoreFormatException(message);
        }
        Map<Integer, Long> offsets = new TreeMap<>();
        String offs = required(p, "source.offsets", source);
        if (!offs.isBlank()) {
            for (String pair : offs.split(",")) {
                int colon = pair.indexOf(':');
                try {
                    offsets.put(
                            Integer.parseInt(pair.substring(0, colon).trim()),
                            Long.parseLong(pair.substring(colon + 1).trim()));
                } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
                    throw corrupt(source, "source.offsets holds " + quoted(pair) + ", not partition:offset", e);
                }
            }
        }
        Map<String, String> attributes = new TreeMap<>();
        for (String name : p.stringPropertyNames()) {
            if (name.startsWith("attr.")) {
                attributes.put(name.substring(5), p.getProperty(name));
            }
        }
        String dataFile = required(p, "data.file", source);
        if (StoreLayout.generationOf(dataFile).isEmpty()) {
            throw corrupt(source, "data.file " + quoted(dataFile) + " is not a generation file name", null);
        }
        return new Manifest(
                FORMAT_VERSION,
                required(p, "namespace", source),
                number(p, "generation", source),
                dataFile,
                number(p, "capacity", source),
                required(p, "topic", source),
                offsets,
                number(p, "content.version", source),
                Boolean.parseBoolean(required(p, "caught.up", source)),
                writerState(required(p, "writer.state", source), source),
                number(p, "published.at", source),
                number(p, "updated.at", source),
                attributes,
                layout(p, LAYOUT, source, true),
                layout(p, REVERSE_LAYOUT, source, false),
                digest(p.getProperty("content.digest"), source));
    }

    /**
     * A manifest that cannot be used as it is: says which file and what is wrong, and the fix (the writer writes every
     * manifest, so a bad one was edited by hand, damaged, or written by a mismatched release).
     */
    private static StoreFormatException corrupt(Path source, String what, Throwable cause) {
        return new StoreFormatException(
                "Corrupt manifest " + source + ": " + what + "; use matching writer and "
                        + "reader releases, or delete the namespace directory and let the writer rebuild it",
                cause);
    }

    /** {@code text} in quotes for a one-line message: cut short when a damaged file made it long. */
    private static String quoted(String text) {
        return "'" + (text.length() > 40 ? text.substring(0, 40) + "…" : text) + "'";
    }

    private static long number(Properties p, String key, Path source) {
        String text = required(p, key, source);
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw corrupt(source, "'" + key + "' is " + quoted(text) + ", not a number", e);
        }
    }

    private static WriterState writerState(String text, Path source) {
        for (WriterState state : WriterState.values()) {
            if (state.name().equalsIgnoreCase(text.trim())) {
                return state;
            }
        }
        throw corrupt(source, "writer.state " + quoted(text) + " is neither 'open' nor 'closed'", null);
    }

    /** Manifests are a few kilobytes: reader and writer refuse one larger than this. */
    public static final int MAX_BYTES = 1 << 20;

    /**
     * Reads the manifest file's bytes, without following a link (as the writer does) and refusing anything but a
     * regular file of at most a megabyte: a reader's refresh must neither block on a pipe nor fill its heap.
     *
     * @throws java.nio.file.NoSuchFileException when there is none
     * @throws StoreFormatException              when it is not a regular file or far too large for a manifest
     */
    public static byte[] readBytes(Path file) throws IOException {
        return Uninterruptibly.call(() -> {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isRegularFile() || a.size() > MAX_BYTES) {
                throw new StoreFormatException("Corrupt manifest " + file + ": "
                        + (a.isRegularFile() ? a.size() + " bytes, far too large for a manifest" : "not a regular file")
                        + "; the writer replaces it with a rebuilt namespace");
            }
            try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
                return in.readNBytes(MAX_BYTES);
            }
        });
    }

    private static Long digest(String hex, Path source) {
        if (hex == null) {
            return null;
        }
        try {
            return ContentDigest.parse(hex.trim());
        } catch (IllegalArgumentException e) {
            throw corrupt(source, e.getMessage(), e);
        }
    }

    private static MapLayout layout(Properties p, String prefix, Path source, boolean required) {
        Map<String, String> values = new TreeMap<>();
        for (String name : p.stringPropertyNames()) {
            if (name.startsWith(prefix)) {
                values.put(name, p.getProperty(name).trim());
            }
        }
        try {
            MapLayout layout = MapLayout.readFrom(prefix, values);
            if (layout == null && required) {
                throw corrupt(source, "no '" + prefix + "*' layout", null);
            }
            return layout;
        } catch (IllegalArgumentException e) {
            throw corrupt(source, e.getMessage(), e);
        }
    }

    private static boolean isNewer(String version) {
        try {
            return Integer.parseInt(version) > FORMAT_VERSION;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /**
     * A manifest of a newer store format version than this release knows: written by a newer writer, not damaged (a
     * writer of this release must not overwrite it).
     */
    public static final class NewerFormatException extends StoreFormatException {
        private static final long serialVersionUID = 1L;

        NewerFormatException(String message) {
            super(message);
        }
    }

    /**
     * A manifest of store format version 1, which readers of this release cannot read (it was read through Chronicle
     * Map); a writer of this release rebuilds such a namespace as version 2.
     */
    public static final class OldFormatException extends StoreFormatException {
        private static final long serialVersionUID = 1L;

        private final long generation;

        OldFormatException(Path source, String generation) {
            super("Namespace manifest " + source + " is store format version 1, which this reader does not read: "
                    + "start the writer of this shared-lookup release, it rebuilds the namespace as version 2");
            long g;
            try {
                g = Long.parseLong(generation);
            } catch (NumberFormatException e) {
                g = 0;
            }
            this.generation = g;
        }

        /** The version-1 generation's number, so that the rebuilt one gets a higher one. */
        public long generation() {
            return generation;
        }
    }

    private static String required(Properties p, String key, Path source) {
        String v = p.getProperty(key);
        if (v == null) {
            throw corrupt(source, "missing '" + key + "'", null);
        }
        return v.trim();
    }

    /** Reads and parses a manifest file. */
    public static Manifest read(Path file) throws IOException {
        return parse(Files.readString(file, StandardCharsets.UTF_8), file);
    }
}
