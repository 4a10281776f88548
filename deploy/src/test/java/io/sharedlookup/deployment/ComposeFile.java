package io.sharedlookup.deployment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.Yaml;

/** docker-compose.yml, parsed (anchors and merge keys resolved by SnakeYAML), with typed accessors. */
final class ComposeFile {
    private final Map<String, Object> root;

    private ComposeFile(Map<String, Object> root) {
        this.root = root;
    }

    static Path repoRoot() {
        return Path.of(System.getProperty("sharedlookup.repoRoot", ".."))
                .toAbsolutePath()
                .normalize();
    }

    static ComposeFile load() throws IOException {
        return new ComposeFile(new Yaml().load(Files.readString(repoRoot().resolve("docker-compose.yml"))));
    }

    Map<String, Object> services() {
        return map(root.get("services"));
    }

    Map<String, Object> service(String name) {
        Map<String, Object> s = map(services().get(name));
        if (s == null) {
            throw new AssertionError("docker-compose.yml has no service '" + name + "'");
        }
        return s;
    }

    Map<String, Object> volumes() {
        return map(root.get("volumes"));
    }

    /** The service's environment, whether written as a map or as KEY=VALUE entries. */
    Map<String, String> environment(String name) {
        Object env = service(name).get("environment");
        Map<String, String> out = new java.util.LinkedHashMap<>();
        if (env instanceof Map<?, ?> m) {
            m.forEach((k, v) -> out.put(String.valueOf(k), String.valueOf(v)));
        } else if (env instanceof List<?> l) {
            for (Object e : l) {
                String s = String.valueOf(e);
                int eq = s.indexOf('=');
                out.put(s.substring(0, eq), s.substring(eq + 1));
            }
        }
        return out;
    }

    /** Short-syntax volume entries {@code source:target[:mode]} as source -> target. */
    Map<String, String> mounts(String name) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        Object volumes = service(name).get("volumes");
        if (volumes instanceof List<?> l) {
            for (Object v : l) {
                String[] parts = String.valueOf(v).split(":");
                out.put(parts[0], parts[1]);
            }
        }
        return out;
    }

    /** Whether {@code name} mounts {@code volume} read-only ({@code volume:path:ro}). */
    boolean mountsReadOnly(String name, String volume) {
        Object volumes = service(name).get("volumes");
        if (volumes instanceof List<?> l) {
            for (Object v : l) {
                String[] parts = String.valueOf(v).split(":");
                if (parts[0].equals(volume)) {
                    return parts.length > 2 && List.of(parts[2].split(",")).contains("ro");
                }
            }
        }
        return false;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }
}
