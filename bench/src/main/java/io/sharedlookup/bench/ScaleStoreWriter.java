package io.sharedlookup.bench;

import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The scale part's comparison stores (1M and 10M entries beside the writer-filled one): {@link ScaleData}'s first
 * {@code entries} records in a published namespace {@value BootstrapFeed#TOPIC}, written through the writer side in a
 * JVM of its own (the measuring JVM must not have run Chronicle: docs/benchmarks.md, "The measuring JVM"). Sized as
 * the writer sizes a first generation from a topic of that many distinct keys ({@link GenerationSizing#forExpected}:
 * 1.5 × headroom), so that all three stores are as full.
 *
 * <p>Usage: {@code ScaleStoreWriter <store dir> <entries>}.
 */
public final class ScaleStoreWriter {
    private ScaleStoreWriter() {}

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        long entries = Long.parseLong(args[1]);
        try (NamespaceDirectory writer =
                NamespaceDirectory.open(new StoreLayout(dir), BootstrapFeed.TOPIC, StorePermissions.DEFAULT)) {
            GenerationFile generation =
                    writer.createGeneration(GenerationSizing.forExpected(entries, ScaleData.KEY_LENGTH, 40), false);
            long timeout = TimeUnit.SECONDS.toNanos(1);
            for (long i = 0; i < entries; i++) {
                generation.put(ScaleData.key(i), ScaleData.value(i), timeout);
            }
            writer.publish(generation, BootstrapFeed.TOPIC, Map.of(0, entries), true, Map.of());
            generation.close();
        }
    }

    /** Runs {@link #main} in a child JVM like this one (Chronicle's flags) and waits for it. */
    static void writeInOwnJvm(Path dir, long entries) throws IOException, InterruptedException {
        List<String> command = BenchData.javaCommandLikeThisOne("-Xmx1g");
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                ScaleStoreWriter.class.getName(),
                dir.toString(),
                Long.toString(entries)));
        Process p = new ProcessBuilder(command).inheritIO().start();
        int exit = p.waitFor();
        if (exit != 0) {
            throw new IOException(
                    "writing the " + entries + "-entry comparison store in " + dir + " failed (exit " + exit + ")");
        }
    }
}
