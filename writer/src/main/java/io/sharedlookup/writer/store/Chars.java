package io.sharedlookup.writer.store;

/** Character sequence comparisons that allocate nothing (a stored value is compared with the one put over it). */
final class Chars {
    private Chars() {}

    /** Whether {@code a} and {@code b} hold the same characters. */
    static boolean contentEquals(CharSequence a, CharSequence b) {
        int n = a.length();
        if (n != b.length()) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (a.charAt(i) != b.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
