package io.sharedlookup.writer.tools;

/** Tab-separated output whose fields may hold any character: tab, newline, carriage return and backslash escaped. */
final class Tsv {
    private Tsv() {}

    static String escape(String field) {
        StringBuilder out = null;
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            String escaped = switch (c) {
                case '\t' -> "\\t";
                case '\n' -> "\\n";
                case '\r' -> "\\r";
                case '\\' -> "\\\\";
                default -> null;
            };
            if (escaped != null && out == null) {
                out = new StringBuilder(field.length() + 8).append(field, 0, i);
            }
            if (out != null) {
                if (escaped != null) {
                    out.append(escaped);
                } else {
                    out.append(c);
                }
            }
        }
        return out == null ? field : out.toString();
    }
}
