package io.sharedlookup.bench;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.reader.ValueBuffer;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.function.LongBinaryOperator;

/**
 * One reader-lib version's lookup loop. {@link ReaderVersions} loads this class once per version, each time in a class
 * loader of its own that holds that version's reader-lib, so the same source binds to two different readers in one
 * JVM. The harness sees it only as a {@link LongBinaryOperator}, a type both loaders share.
 *
 * <p>{@code applyAsLong(mode, n)} makes {@code n} lookups of random keys and returns the hits: mode 0 is
 * {@code getInto(key, ValueBuffer)}, mode 1 is {@code getAllInto} in batches of {@link #BATCH}.
 */
public final class ReaderVersionDriver implements LongBinaryOperator {
    static final int BATCH = 8;
    private final SharedLookupStore store;
    private final Lookup lookup;
    private final String[] keys;
    private final ValueBuffer value = new ValueBuffer();
    private final String[] batchKeys = new String[BATCH];
    private final ValueBuffer[] values = new ValueBuffer[BATCH];
    private final SplittableRandom random = new SplittableRandom(7);

    public ReaderVersionDriver(String storeDir, String namespace, String[] keys) throws Exception {
        this.store = SharedLookupStore.open(Path.of(storeDir));
        this.lookup = store.lookup(namespace);
        this.keys = keys;
        for (int i = 0; i < BATCH; i++) {
            values[i] = new ValueBuffer();
        }
    }

    @Override
    public long applyAsLong(long mode, long n) {
        long hits = 0;
        if (mode == 0) {
            for (long i = 0; i < n; i++) {
                if (lookup.getInto(keys[random.nextInt(keys.length)], value)) {
                    hits++;
                }
            }
        } else {
            for (long i = 0; i < n; i += BATCH) {
                for (int j = 0; j < BATCH; j++) {
                    batchKeys[j] = keys[random.nextInt(keys.length)];
                }
                hits += lookup.getAllInto(batchKeys, values, BATCH);
            }
        }
        return hits;
    }
}
