package io.sharedlookup.druid.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * DruidClusterIT's one-topic-many-lookups data: topic {@code profiles} of JSON documents with three fields (one of them
 * nested), which the writer reads once into three namespaces with {@code --lookup NAMESPACE=profiles:FIELD}, each
 * registered with Druid as its own {@code sharedLookup}.
 */
final class ProfileLookups {
    static final String TOPIC = "profiles";

    /** Namespace (and Druid lookup name) to the JSON field it stores. */
    static final Map<String, String> FIELDS = new LinkedHashMap<>();

    /** The documents' field values per id, in {@link #FIELDS}' order. */
    static final Map<String, List<String>> PROFILES = new LinkedHashMap<>();

    static {
        FIELDS.put("profile_name", "name");
        FIELDS.put("profile_country", "address.country");
        FIELDS.put("profile_lang", "lang");
        PROFILES.put("p1", List.of("Ada Lovelace", "GB", "en"));
        PROFILES.put("p2", List.of("Zoë Ørsted-Åberg", "DK", "da"));
        PROFILES.put("p3", List.of("李雷", "CN", "zh"));
        PROFILES.put("p4", List.of("Marie Curie", "FR", "fr"));
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private ProfileLookups() {}

    /** The JSON document produced for {@code id}: {@code {"name":…, "address":{"country":…}, "lang":…}}. */
    static String document(String id) {
        List<String> v = PROFILES.get(id);
        ObjectNode doc = JSON.createObjectNode().put("name", v.get(0));
        doc.putObject("address").put("country", v.get(1)).put("city", "irrelevant");
        doc.put("lang", v.get(2));
        return doc.toString();
    }

    /** The writer's options that feed the three namespaces from the one topic. */
    static String[] writerArgs() {
        List<String> args = new ArrayList<>();
        FIELDS.forEach((ns, field) -> args.addAll(List.of("--lookup", ns + "=" + TOPIC + ":" + field)));
        return args.toArray(String[]::new);
    }

    /** The three lookups' specs for the coordinator's {@code __default} tier, over the writer's store. */
    static Map<String, Object> specs(Path storeDir) {
        Map<String, Object> specs = new LinkedHashMap<>();
        FIELDS.keySet()
                .forEach(ns -> specs.put(
                        ns,
                        Map.of(
                                "version",
                                "v1",
                                "lookupExtractorFactory",
                                Map.of("type", "sharedLookup", "namespace", ns, "storeDir", storeDir.toString()))));
        return specs;
    }

    /** Each id's expected values in the three lookups, in {@link #FIELDS}' order: nulls for an unknown id. */
    static Map<String, List<String>> expected(List<String> ids) {
        Map<String, List<String>> expected = new LinkedHashMap<>();
        ids.forEach(id -> expected.put(id, PROFILES.getOrDefault(id, Arrays.asList(null, null, null))));
        return expected;
    }

    /** An inline datasource of the ids, column {@code id}, for Druid SQL's FROM. */
    static String from(List<String> ids) {
        return ids.stream()
                .map(id -> "('" + id.replace("'", "''") + "')")
                .collect(Collectors.joining(", ", "(VALUES ", ") AS t(id)"));
    }

    /** SQL selecting each id and its value in each of the three lookups. */
    static String selectAll(List<String> ids) {
        return FIELDS.keySet().stream()
                .map(ns -> "LOOKUP(id, '" + ns + "')")
                .collect(Collectors.joining(", ", "SELECT id, ", " FROM " + from(ids)));
    }

    /** The rows {@link #selectAll} answers with: id to the three values (null where a lookup has none). */
    static Map<String, List<String>> rows(JsonNode rows) {
        Map<String, List<String>> byId = new LinkedHashMap<>();
        rows.forEach(row -> {
            List<String> values = new ArrayList<>();
            for (int i = 1; i < row.size(); i++) {
                values.add(row.get(i).isNull() ? null : row.get(i).asText());
            }
            byId.put(row.get(0).asText(), values);
        });
        return byId;
    }
}
