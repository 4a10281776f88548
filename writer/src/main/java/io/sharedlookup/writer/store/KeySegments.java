package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.MapLayout;
import java.nio.charset.StandardCharsets;
import net.openhft.chronicle.algo.hashing.LongHashFunction;

/**
 * Which segment of a generation Chronicle puts a key in, computed without touching the map: XXH64 (seed 0) of the
 * key's UTF-8 bytes, split as {@link MapLayout#segmentOf} says. Used to hand each parallel applier its own segments.
 * Chronicle encodes a char outside the BMP as two three-byte halves, so such a key may live elsewhere than computed
 * here: that only lets two appliers share its segment's lock, never changes which thread applies the key.
 */
public final class KeySegments {
    private static final LongHashFunction XX = LongHashFunction.xx_r39();

    private KeySegments() {}

    /** The segment of {@code layout}'s map that {@code key} lives in. */
    public static int segmentOf(MapLayout layout, String key) {
        return layout.segmentOf(XX.hashBytes(key.getBytes(StandardCharsets.UTF_8)));
    }
}
