package io.sharedlookup.reliability;

/**
 * The saturated-host scenario's updates, numbered from 0, known to the producer and to every reader JVM alike: update
 * {@code n} sets key {@link #keyIndex(int) k<keyIndex(n)>} to {@code "<n>:"} followed by a filler whose length (0 to
 * 250 chars) and letter depend on {@code n}. Updates {@code 0 .. KEYS-1} fill every key once; later ones revisit the
 * keys in a scattered order (every segment gets some of each burst), each visit with another length, so the writer
 * moves entries between chunk counts in place. A reader can therefore tell, from one value, which update wrote it and
 * whether the value is whole: {@link #updateIn}.
 */
final class NumberedUpdates {
    /** Distinct keys. */
    static final int KEYS = 4_000;
    /** Coprime with {@link #KEYS}: consecutive updates land on keys far apart, hence on different segments. */
    private static final long STRIDE = 1_103;

    private static final int MAX_FILLER = 251;

    private NumberedUpdates() {}

    /** The index of the key update {@code n} sets. */
    static int keyIndex(int n) {
        return (int) ((n * STRIDE) % KEYS);
    }

    /** Writes the key of update {@code n} into {@code out} (emptied first). */
    static void key(int n, StringBuilder out) {
        out.setLength(0);
        out.append('k').append(keyIndex(n));
    }

    static String key(int n) {
        return "k" + keyIndex(n);
    }

    private static int fillerLength(int n) {
        return (int) ((n * 37L) % MAX_FILLER);
    }

    private static char filler(int n) {
        return (char) ('a' + n % 26);
    }

    /** The value update {@code n} sets. */
    static String value(int n) {
        StringBuilder out = new StringBuilder().append(n).append(':');
        out.append(String.valueOf(filler(n)).repeat(fillerLength(n)));
        return out.toString();
    }

    /**
     * Which update wrote {@code value}, read under key {@code k<keyIndex>}: its number, or -1 when the value is not
     * exactly what some update wrote to that key (torn, mixed up with another key's, or foreign). Allocates nothing.
     */
    static int updateIn(CharSequence value, int keyIndex) {
        int colon = -1;
        long n = 0;
        for (int i = 0; i < value.length() && i < 11; i++) {
            char c = value.charAt(i);
            if (c == ':') {
                colon = i;
                break;
            }
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        if (colon <= 0 || n > Integer.MAX_VALUE || keyIndex((int) n) != keyIndex) {
            return -1;
        }
        int update = (int) n;
        if (value.length() != colon + 1 + fillerLength(update)) {
            return -1;
        }
        char f = filler(update);
        for (int i = colon + 1; i < value.length(); i++) {
            if (value.charAt(i) != f) {
                return -1;
            }
        }
        return update;
    }

    /** The key index in a key written by {@link #key(int, StringBuilder)}. */
    static int keyIndexOf(CharSequence key) {
        int index = 0;
        for (int i = 1; i < key.length(); i++) {
            index = index * 10 + (key.charAt(i) - '0');
        }
        return index;
    }
}
