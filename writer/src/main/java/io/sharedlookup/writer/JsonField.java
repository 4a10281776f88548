package io.sharedlookup.writer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.writer.ingest.RecordDecoder;
import java.io.IOException;

/**
 * Extracts the lookup value from a JSON record value by a dotted path ({@code --value-field name.display}). In this
 * package rather than with {@link RecordDecoder} because the command line validates the path with it.
 */
public final class JsonField {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final String[] path;

    public JsonField(String dottedPath) {
        this.path = validatePath(dottedPath).split("\\.");
    }

    static String validatePath(String dottedPath) {
        if (dottedPath.startsWith(".") || dottedPath.endsWith(".") || dottedPath.contains("..")) {
            throw new ConfigException("Invalid --value-field '" + dottedPath + "': use a dotted path of field names, "
                    + "e.g. name or profile.displayName");
        }
        return dottedPath;
    }

    /**
     * The field's value as text: strings as they are, numbers and booleans as JSON literals, objects and arrays as
     * compact JSON.
     *
     * @throws RecordDecoder.DecodeException when the value is not JSON or lacks the field
     */
    public String extract(byte[] json) {
        JsonNode node;
        try {
            node = JSON.readTree(json);
        } catch (IOException e) {
            throw new RecordDecoder.DecodeException("value is not valid JSON: " + firstLine(e.getMessage()));
        }
        for (String name : path) {
            node = node == null ? null : node.get(name);
        }
        if (node == null || node.isNull() || node.isMissingNode()) {
            throw new RecordDecoder.DecodeException("value has no field '" + String.join(".", path) + "'");
        }
        if (node.isValueNode()) {
            return node.asText();
        }
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new RecordDecoder.DecodeException("field cannot be rendered: " + e.getOriginalMessage());
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
