package io.sharedlookup.internal.store;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * How the reverse index stores the keys holding a value: each key as {@code <length>:<key>} (keys may contain any
 * character), or the marker {@value #TOO_MANY}, meaning "shared by too many keys: scan for this value".
 */
public final class ReverseKeys {
    public static final String TOO_MANY = "*";
    /** Past this many encoded chars an entry becomes {@link #TOO_MANY}. */
    public static final int MAX_ENCODED_CHARS = 512;

    private ReverseKeys() {}

    public static void append(StringBuilder out, CharSequence key) {
        out.append(key.length()).append(':').append(key);
    }

    public static void encode(StringBuilder out, Collection<String> keys) {
        out.setLength(0);
        keys.forEach(k -> append(out, k));
    }

    /**
     * The keys in {@code encoded}.
     *
     * @throws IllegalArgumentException when it is not an encoding of keys
     */
    public static List<String> decode(CharSequence encoded) {
        List<String> keys = new ArrayList<>();
        int i = 0;
        int n = encoded.length();
        while (i < n) {
            int colon = i;
            long length = 0; // a long, checked after each digit: an int overflows past ~214M chars
            while (colon < n && encoded.charAt(colon) != ':') {
                char c = encoded.charAt(colon);
                length = length * 10 + (c - '0');
                if (c < '0' || c > '9' || length > n) {
                    throw notAKeyList(encoded);
                }
                colon++;
            }
            if (colon >= n || colon + 1 + length > n) {
                throw notAKeyList(encoded);
            }
            int end = (int) (colon + 1 + length);
            keys.add(encoded.subSequence(colon + 1, end).toString());
            i = end;
        }
        return keys;
    }

    /** Names at most the start of {@code encoded}: a damaged entry may be millions of chars long. */
    private static IllegalArgumentException notAKeyList(CharSequence encoded) {
        int shown = Math.min(encoded.length(), 80);
        return new IllegalArgumentException("not a key list: " + encoded.subSequence(0, shown)
                + (shown < encoded.length() ? "… (" + encoded.length() + " chars)" : ""));
    }
}
