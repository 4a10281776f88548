package io.sharedlookup.internal.store;

import java.util.regex.Pattern;

/** Namespace names become directory names, so only a safe, portable subset is accepted. */
public final class NamespaceNames {
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._-]{1,200}");

    private NamespaceNames() {}

    public static boolean isValid(String name) {
        return name != null && VALID.matcher(name).matches() && !name.equals(".") && !name.equals("..");
    }

    /**
     * Returns {@code name} when valid.
     *
     * @throws IllegalArgumentException naming the problem and the allowed form
     */
    public static String requireValid(String name) {
        if (!isValid(name)) {
            throw new IllegalArgumentException("Invalid namespace name " + quote(name)
                    + ": use 1 to 200 characters from [A-Za-z0-9._-], not \".\" or \"..\"");
        }
        return name;
    }

    private static String quote(String name) {
        if (name == null) {
            return "null";
        }
        String shown = name.length() > 60 ? name.substring(0, 60) + "..." : name;
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < shown.length(); i++) {
            char c = shown.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
