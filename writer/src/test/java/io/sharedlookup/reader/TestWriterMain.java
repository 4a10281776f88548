package io.sharedlookup.reader;

import io.sharedlookup.internal.store.LockTimeoutException;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A writer process for multi-JVM tests, standing in for the Kafka writer: keeps keys {@code k0..k<n-1>} at values
 * {@code v<i>@<round>}, one round after another, so readers can check every value they see is well-formed and that
 * no key's round ever goes backwards. The round plays the part of the Kafka offset (recorded as partition 0's offset).
 *
 * <p>Heals like the real writer: after an unclean stop it builds a fresh generation; when a killed reader left a
 * segment locked, it copies the generation into a new one and publishes that.
 *
 * <p>Arguments: storeDir namespace keys publishEveryRounds. Prints {@code READY}, {@code ROUND}, {@code HEALED} lines.
 */
public final class TestWriterMain {
    static final long LOCK_TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final NamespaceDirectory writer;
    private final int keys;
    private GenerationFile generation;
    private long round;

    private TestWriterMain(NamespaceDirectory writer, int keys) {
        this.writer = writer;
        this.keys = keys;
    }

    public static void main(String[] args) throws Exception {
        Path storeDir = Path.of(args[0]);
        String namespace = args[1];
        int keys = Integer.parseInt(args[2]);
        int publishEvery = Integer.parseInt(args[3]);
        NamespaceDirectory writer =
                NamespaceDirectory.open(new StoreLayout(storeDir), namespace, StorePermissions.DEFAULT);
        new TestWriterMain(writer, keys).run(publishEvery);
    }

    private void run(int publishEvery) throws Exception {
        long lastRound =
                writer.published().map(m -> m.offsets().getOrDefault(0, 0L)).orElse(0L);
        boolean resumed = writer.canResume();
        if (resumed) {
            generation = writer.resume();
            round = lastRound;
        } else {
            // Unclean stop or first start: rebuild from the "topic", past any round a reader may have seen.
            round = lastRound + 2;
            GenerationFile fresh = writer.createGeneration(GenerationSizing.forExpected(keys, 6, 14));
            for (int i = 0; i < keys; i++) {
                fresh.put("k" + i, value(i), LOCK_TIMEOUT_NANOS);
            }
            publish(fresh);
        }
        System.out.println("READY gen=" + generation.file().getFileName() + " resumed=" + resumed + " round=" + round);
        for (; ; ) {
            round++;
            for (int i = 0; i < keys; i++) {
                try {
                    generation.put("k" + i, value(i), LOCK_TIMEOUT_NANOS);
                } catch (LockTimeoutException e) {
                    heal();
                    generation.put("k" + i, value(i), LOCK_TIMEOUT_NANOS);
                }
            }
            writer.checkpoint(Map.of(0, round), true, true);
            if (round % publishEvery == 0) {
                publish(copyOf(generation));
            }
            System.out.println("ROUND " + round + " gen="
                    + writer.published().map(Manifest::generation).orElse(0L));
        }
    }

    private void heal() throws Exception {
        publish(copyOf(generation));
        System.out.println(
                "HEALED gen=" + writer.published().map(Manifest::generation).orElse(0L));
    }

    private GenerationFile copyOf(GenerationFile source) throws Exception {
        GenerationFile next = writer.createGeneration(GenerationSizing.forExpected(keys, 6, 14));
        source.forEach((k, v) -> next.put(k, v, LOCK_TIMEOUT_NANOS), LOCK_TIMEOUT_NANOS);
        return next;
    }

    private void publish(GenerationFile next) throws Exception {
        writer.publish(next, "test-topic", Map.of(0, round), true, Map.of());
        GenerationFile old = generation;
        generation = next;
        if (old != null) {
            old.close();
        }
    }

    private String value(int i) {
        return "v" + i + "@" + round;
    }
}
