package io.sharedlookup.writer;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.sharedlookup.writer.ingest.RecordDecoder;
import java.io.IOException;

/**
 * Extracts the lookup value from a JSON record value by a dotted path ({@code --value-field name.display}). In this
 * package rather than with {@link RecordDecoder} because the command line validates the path with it.
 */
public final class JsonField {
    /** Exact numbers inside objects and arrays: no double in between to round them. */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
            .build();

    private final String[] path;

    public JsonField(String dottedPath) {
        this.path = validatePath(dottedPath).split("\\.");
    }

    /** Whether {@code dottedPath} is a dotted path of field names (none empty). */
    static boolean isPath(String dottedPath) {
        return !dottedPath.isEmpty()
                && !dottedPath.startsWith(".")
                && !dottedPath.endsWith(".")
                && !dottedPath.contains("..");
    }

    static String validatePath(String dottedPath) {
        if (!isPath(dottedPath)) {
            throw new ConfigException("Invalid --value-field '" + dottedPath + "': use a dotted path of field names, "
                    + "e.g. name or profile.displayName");
        }
        return dottedPath;
    }

    /**
     * The field's value as text: strings as they are, numbers and booleans as the JSON literals the record holds
     * ({@code 1e2} stays {@code 1e2}, {@code 1.50} stays {@code 1.50}), objects and arrays as compact JSON (numbers
     * inside them exactly, exponents written {@code E+n}). The whole value must be one JSON document: trailing content
     * is an error. When a name occurs twice in an object, the last occurrence counts.
     *
     * @throws RecordDecoder.DecodeException when the value is not JSON or lacks the field
     */
    public String extract(byte[] json) {
        try (JsonParser parser = JSON.getFactory().createParser(json)) {
            if (parser.nextToken() == null) {
                throw new RecordDecoder.DecodeException("value is not valid JSON: it is empty");
            }
            String found = find(parser, 0); // reads the whole value, so all of it must be JSON
            if (parser.nextToken() != null) {
                throw new RecordDecoder.DecodeException("value is not valid JSON: content follows the JSON value");
            }
            if (found == null) {
                throw new RecordDecoder.DecodeException("value has no field '" + String.join(".", path) + "'");
            }
            return found;
        } catch (IOException e) {
            String message = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
            throw new RecordDecoder.DecodeException("value is not valid JSON: " + firstLine(message));
        }
    }

    /**
     * With the parser on a value: the text of {@code path[depth..]} inside it (null when absent or JSON null), the
     * value consumed whole.
     */
    private String find(JsonParser parser, int depth) throws IOException {
        if (parser.currentToken() != JsonToken.START_OBJECT) {
            parser.skipChildren();
            return null;
        }
        String found = null;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            boolean match = parser.currentName().equals(path[depth]);
            parser.nextToken();
            if (!match) {
                parser.skipChildren();
            } else { // a name given twice: the last occurrence counts, as when the value is read as a tree
                found = depth == path.length - 1 ? render(parser) : find(parser, depth + 1);
            }
        }
        return found;
    }

    /** The current value as the text stored, consumed whole; null for JSON null. */
    private static String render(JsonParser parser) throws IOException {
        return switch (parser.currentToken()) {
            case VALUE_STRING, VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT, VALUE_TRUE, VALUE_FALSE -> parser.getText();
            case VALUE_NULL -> null;
            default -> JSON.writeValueAsString(JSON.readTree(parser));
        };
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
