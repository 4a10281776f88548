package io.sharedlookup.writer;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.writer.namespace.StoredSettings;
import io.sharedlookup.writer.store.ManifestFiles;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Refuses a start that would change what a namespace stores ({@link StoredSettings}) unless the operator asked for it
 * with {@code --rebuild NAMESPACE}: without this, one line missing from a config file would rebuild a namespace with
 * other values and every reader would see them. Runs before the writer opens, locks or cleans up any namespace, so a
 * refused start leaves the store exactly as it was.
 */
final class StoredSettingsCheck {
    private StoredSettingsCheck() {
    }

    /**
     * @param layout        the store
     * @param bindings      the namespaces this start serves
     * @param attributesFor the settings this start would record with a namespace's generations
     * @param rebuild       the namespaces the operator asked to rebuild ({@code --rebuild}): not checked
     * @throws ConfigException one line naming each namespace whose stored settings differ, the stored and new values,
     *                         and how to proceed
     */
    static void requireUnchanged(StoreLayout layout, List<TopicBinding> bindings,
                                 Function<TopicBinding, Map<String, String>> attributesFor, Set<String> rebuild) {
        List<String> refused = new ArrayList<>();
        List<String> namespaces = new ArrayList<>();
        List<String> putBack = new ArrayList<>();
        for (TopicBinding b : bindings) {
            if (rebuild.contains(b.namespace())) {
                continue;
            }
            Optional<Manifest> published = ManifestFiles.readIfUsable(layout.manifest(b.namespace()));
            if (published.isEmpty()) {
                continue; // nothing readers see yet, or nothing usable: built from the topic as before
            }
            Manifest m = published.get();
            List<StoredSettings.Change> changes = StoredSettings.changes(m.topic(), m.attributes(), b.topic(),
                    attributesFor.apply(b));
            if (changes.isEmpty()) {
                continue;
            }
            refused.add("namespace '" + b.namespace() + "' was built with "
                    + changes.stream().map(StoredSettings.Change::toString).collect(Collectors.joining("; ")));
            namespaces.add(b.namespace());
            changes.forEach(c -> putBack.add(c.putBack() + (bindings.size() > 1 ? " for '" + b.namespace() + "'"
                    : "")));
        }
        if (refused.isEmpty()) {
            return;
        }
        boolean one = namespaces.size() == 1;
        throw new ConfigException("Refusing to start: " + String.join("; ", refused) + ": starting would change what "
                + "readers see. Start again " + String.join(" and ", putBack) + " (nothing was changed), or pass "
                + namespaces.stream().map(n -> "--rebuild " + n).collect(Collectors.joining(" ")) + " to rebuild "
                + (one ? "it from its topic" : "them from their topics") + " with the new settings (readers keep the "
                + "old values until the new generation is published)");
    }
}
