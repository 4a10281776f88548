package io.sharedlookup.bench;

import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The reference data every benchmark uses: ids {@code 1000000+i} mapped to {@code "User name i"}. */
final class BenchData {
    static final String NAMESPACE = "users";

    private BenchData() {}

    static String key(int i) {
        return Integer.toString(1_000_000 + i);
    }

    static String value(int i) {
        return "User name " + i;
    }

    /** Writes {@code entries} entries into a published namespace of a store at {@code dir}. */
    static void writeStore(Path dir, int entries) throws IOException {
        writeStore(dir, entries, false);
    }

    /**
     * Like {@link #writeStore(Path, int, boolean)}, in a JVM of its own, as the writer runs in production. A benchmark
     * that measures readers must not run Chronicle Map and the writer in the measuring JVM: a reader's JVM never has
     * them, the heap maps compared with it do not either, and having run them slowed reader-lib's lookups by 3–7 % on
     * JDK 17 and its batch lookup by a third on JDK 25 (docs/benchmarks.md, "The measuring JVM").
     */
    static void writeStoreInOwnJvm(Path dir, int entries, boolean reverseIndex) throws IOException {
        writeStoreInOwnJvm(dir, entries, reverseIndex, KeyShapes.NUMERIC7);
    }

    /** Like {@link #writeStoreInOwnJvm(Path, int, boolean)}, with ids of {@code shape} ({@link KeyShapes#key}). */
    static void writeStoreInOwnJvm(Path dir, int entries, boolean reverseIndex, KeyShapes shape) throws IOException {
        List<String> command = javaCommandLikeThisOne("-Xmx2g");
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                BenchData.class.getName(),
                dir.toString(),
                Integer.toString(entries),
                Boolean.toString(reverseIndex),
                shape.param));
        Process writer = new ProcessBuilder(command).inheritIO().start();
        try {
            int exit = writer.waitFor();
            if (exit != 0) {
                throw new IOException("writing the benchmark store in " + dir + " failed (exit " + exit + "): "
                        + String.join(" ", command));
            }
        } catch (InterruptedException e) {
            writer.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing the benchmark store in " + dir, e);
        }
    }

    /**
     * The start of a command line for another JVM like this one: the same {@code java}, heap {@code maxHeap}, and this
     * JVM's {@code --add-…} flags, which Chronicle Map needs in a writer.
     */
    static List<String> javaCommandLikeThisOne(String maxHeap) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                maxHeap,
                "-Dchronicle.analytics.disable=true"));
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-"))
                .toList());
        return command;
    }

    /** {@link #writeStoreInOwnJvm}'s child: {@code <dir> <entries> <reverseIndex> <key shape>}. */
    public static void main(String[] args) throws IOException {
        writeStore(Path.of(args[0]), Integer.parseInt(args[1]), Boolean.parseBoolean(args[2]), KeyShapes.of(args[3]));
    }

    /** Like {@link #writeStore(Path, int)}, optionally with the writer's reverse index. */
    static void writeStore(Path dir, int entries, boolean reverseIndex) throws IOException {
        writeStore(dir, entries, reverseIndex, KeyShapes.NUMERIC7);
    }

    /** Like {@link #writeStore(Path, int, boolean)}, with ids of {@code shape} and values {@link #value}. */
    static void writeStore(Path dir, int entries, boolean reverseIndex, KeyShapes shape) throws IOException {
        try (NamespaceDirectory writer =
                NamespaceDirectory.open(new StoreLayout(dir), NAMESPACE, StorePermissions.DEFAULT)) {
            GenerationFile generation = writer.createGeneration(
                    GenerationSizing.forExpected(
                            entries, shape.key(entries / 2).getBytes(StandardCharsets.UTF_8).length, 15),
                    reverseIndex);
            long timeout = TimeUnit.SECONDS.toNanos(1);
            for (int i = 0; i < entries; i++) {
                generation.put(shape.key(i), value(i), timeout);
            }
            writer.publish(generation, NAMESPACE, Map.of(0, (long) entries), true, Map.of());
            generation.close();
        }
    }
}
