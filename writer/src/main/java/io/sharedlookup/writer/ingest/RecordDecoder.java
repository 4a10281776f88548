package io.sharedlookup.writer.ingest;

import io.sharedlookup.writer.JsonField;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Turns record bytes into the key and value stored. Strict UTF-8: malformed bytes are a decode error rather than
 * replacement characters, since a silently altered key would never be found.
 */
public final class RecordDecoder {
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    private final Optional<JsonField> valueField;

    RecordDecoder(Optional<String> valueField) {
        this.valueField = valueField.map(JsonField::new);
    }

    String key(byte[] bytes) {
        return decode(bytes, "key");
    }

    String value(byte[] bytes) {
        return valueField.isPresent() ? valueField.get().extract(bytes) : decode(bytes, "value");
    }

    private String decode(byte[] bytes, String what) {
        if (isAscii(bytes)) {
            // Most ids and names are ASCII, which is valid UTF-8 as it stands; ISO-8859-1 copies it into a compact
            // String without the strict decoder's buffers (they showed in bootstrap profiles).
            return new String(bytes, StandardCharsets.ISO_8859_1);
        }
        try {
            CharBuffer chars = utf8.decode(ByteBuffer.wrap(bytes));
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw new DecodeException(what + " is not valid UTF-8");
        }
    }

    private static boolean isAscii(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0) {
                return false;
            }
        }
        return true;
    }

    /** A record that cannot be stored; it is counted, logged (rate-limited) and skipped. */
    public static final class DecodeException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public DecodeException(String message) {
            super(message, null, false, false);
        }
    }
}
