package io.sharedlookup.internal.store;

/**
 * The two UTF-8 encodings the project uses, each counted and written in one place.
 *
 * <ul>
 *   <li><b>Standard UTF-8</b> ({@link #length}, {@link #encode}), exactly as {@code String.getBytes(UTF_8)}: a valid
 *       surrogate pair is one 4-byte code point, an unpaired surrogate becomes {@code '?'} (1 byte). Used where the
 *       bytes are defined by the format independent of Chronicle (the content digest) and where a size is compared with
 *       a record's bytes as they came from Kafka.</li>
 *   <li><b>Chronicle's per-char UTF-8</b> ({@link #chronicleLength}, {@link #encodeChronicle}): every {@code char} on
 *       its own in 1 to 3 bytes, so a surrogate, paired or not, is 3 bytes and a pair 6. This is what Chronicle Map
 *       writes for keys and values (the {@code char-utf8} of {@link MapLayout#ENCODING}), so the reader must encode
 *       keys this way to find them, and the writer must count this way to size what the file holds.</li>
 * </ul>
 *
 * <p>Static and small, so that the JIT inlines these methods into the reader's lookups.
 */
public final class Utf8 {
    /** The most bytes one {@code char} takes in either encoding (a pair's 4 standard bytes are 2 per char). */
    public static final int MAX_BYTES_PER_CHAR = 3;

    private Utf8() {}

    /** The number of bytes {@code s} takes in standard UTF-8, as {@code String.getBytes(UTF_8)} would write it. */
    public static int length(CharSequence s) {
        int n = 0;
        for (int i = 0, len = s.length(); i < len; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                    n += 4;
                    i++;
                } else {
                    n++; // replaced by '?'
                }
            } else {
                n += 3;
            }
        }
        return n;
    }

    /**
     * Writes {@code s} in standard UTF-8 at {@code at}, as {@code String.getBytes(UTF_8)} does (an unpaired surrogate
     * becomes {@code '?'}); returns the index after the last byte. {@code out} must have room for {@link #length}
     * bytes from {@code at} ({@link #MAX_BYTES_PER_CHAR} per char always suffices).
     */
    public static int encode(CharSequence s, byte[] out, int at) {
        int length = s.length();
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                out[at++] = (byte) c;
            } else if (c < 0x800) {
                out[at++] = (byte) (0xC0 | (c >> 6));
                out[at++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(s.charAt(i + 1))) {
                    int cp = Character.toCodePoint(c, s.charAt(++i));
                    out[at++] = (byte) (0xF0 | (cp >> 18));
                    out[at++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                    out[at++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                    out[at++] = (byte) (0x80 | (cp & 0x3F));
                } else {
                    out[at++] = '?';
                }
            } else {
                out[at++] = (byte) (0xE0 | (c >> 12));
                out[at++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                out[at++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return at;
    }

    /**
     * The number of bytes {@code s} takes as Chronicle stores it: each char on its own, 1 byte below 0x80, 2 below
     * 0x800, else 3 (a surrogate too, so a pair is 6 bytes where standard UTF-8 takes 4). What a store file holds.
     */
    public static int chronicleLength(CharSequence s) {
        int n = 0;
        for (int i = 0, len = s.length(); i < len; i++) {
            char c = s.charAt(i);
            n += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
        }
        return n;
    }

    /**
     * Writes the first {@code length} chars of {@code s} into {@code out} from index 0 as Chronicle stores text: each
     * char on its own, in 1 to 3 bytes (a surrogate pair as two 3-byte forms; see {@link #chronicleLength}). Returns
     * the byte count. {@code out} must hold {@link #MAX_BYTES_PER_CHAR} bytes per char.
     */
    static int encodeChronicle(CharSequence s, int length, byte[] out) {
        int n = 0;
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                out[n++] = (byte) c;
            } else if (c < 0x800) {
                out[n++] = (byte) (0xC0 | (c >> 6));
                out[n++] = (byte) (0x80 | (c & 0x3F));
            } else {
                out[n++] = (byte) (0xE0 | (c >> 12));
                out[n++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                out[n++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return n;
    }
}
