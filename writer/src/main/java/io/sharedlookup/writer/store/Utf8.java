package io.sharedlookup.writer.store;

/** UTF-8 byte lengths without encoding: sizing needs averages of what Chronicle stores, not the bytes themselves. */
public final class Utf8 {
    private Utf8() {
    }

    /** The number of bytes {@code s} takes in UTF-8 (an unpaired surrogate counts as 3, as Java encodes it). */
    public static int length(CharSequence s) {
        int n = 0;
        for (int i = 0, len = s.length(); i < len; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }
}
