package io.sharedlookup.writer;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.writer.namespace.StoredSettings;
import io.sharedlookup.writer.store.ManifestFiles;
import io.sharedlookup.writer.store.NamespaceDirectory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
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
 * refused start leaves the store exactly as it was; and again once the namespaces are locked, against what they
 * publish then, since another writer that held a lock meanwhile may have published with other settings.
 */
final class StoredSettingsCheck {
    private StoredSettingsCheck() {}

    /**
     * @param layout        the store
     * @param bindings      the namespaces this start serves
     * @param attributesFor the settings this start would record with a namespace's generations
     * @param rebuild       the namespaces the operator asked to rebuild ({@code --rebuild}): not checked
     * @throws ConfigException one line naming each namespace whose stored settings differ, the stored and new values,
     *                         and how to proceed
     */
    static void requireUnchanged(
            StoreLayout layout,
            List<TopicBinding> bindings,
            Function<TopicBinding, Map<String, String>> attributesFor,
            Set<String> rebuild) {
        requireUnchanged(
                bindings, b -> ManifestFiles.readIfUsable(layout.manifest(b.namespace())), attributesFor, rebuild);
    }

    /**
     * {@link #requireUnchanged(StoreLayout, List, Function, Set)} against what the locked {@code directories} (one per
     * binding, in the same order) publish: with the locks held, nobody else can publish any more.
     */
    static void requireUnchangedLocked(
            List<TopicBinding> bindings,
            List<NamespaceDirectory> directories,
            Function<TopicBinding, Map<String, String>> attributesFor,
            Set<String> rebuild) {
        Map<String, NamespaceDirectory> byNamespace = new LinkedHashMap<>();
        directories.forEach(w -> byNamespace.put(w.namespace(), w));
        requireUnchanged(bindings, b -> byNamespace.get(b.namespace()).published(), attributesFor, rebuild);
    }

    private static void requireUnchanged(
            List<TopicBinding> bindings,
            Function<TopicBinding, Optional<Manifest>> publishedOf,
            Function<TopicBinding, Map<String, String>> attributesFor,
            Set<String> rebuild) {
        List<String> refused = new ArrayList<>();
        List<String> namespaces = new ArrayList<>();
        List<String> putBack = new ArrayList<>();
        Map<TopicBinding, Manifest> published = new LinkedHashMap<>();
        Map<TopicBinding, List<StoredSettings.Change>> changed = new LinkedHashMap<>();
        for (TopicBinding b : bindings) {
            if (rebuild.contains(b.namespace())) {
                continue;
            }
            // nothing readers see yet, or nothing usable: built from the topic as before
            publishedOf.apply(b).ifPresent(m -> {
                published.put(b, m);
                List<StoredSettings.Change> changes =
                        StoredSettings.changes(m.topic(), m.attributes(), b.topic(), attributesFor.apply(b));
                if (!changes.isEmpty()) {
                    changed.put(b, changes);
                }
            });
        }
        if (changed.isEmpty()) {
            return;
        }
        // --value-field is writer-wide: it gives the --topic namespaces (and a field-less --lookup) one field. When
        // their stored fields differ, it cannot give each its own: each fielded one gets a --lookup instead.
        Set<Optional<String>> wanted = new HashSet<>();
        published.forEach((b, m) -> {
            if (!b.fromLookup() || changed.containsKey(b) && storedField(m).isEmpty()) {
                wanted.add(storedField(m));
            }
        });
        boolean oneValueField = wanted.size() <= 1;
        boolean withoutValueField = false;
        Set<TopicBinding> given = new HashSet<>(); // the namespaces a --lookup is suggested for
        for (Map.Entry<TopicBinding, List<StoredSettings.Change>> e : changed.entrySet()) {
            TopicBinding b = e.getKey();
            Manifest m = published.get(b);
            refused.add("namespace '" + b.namespace() + "' was built with "
                    + e.getValue().stream().map(StoredSettings.Change::toString).collect(Collectors.joining("; ")));
            namespaces.add(b.namespace());
            boolean ownOption = b.fromLookup() || !oneValueField;
            for (StoredSettings.Change c : e.getValue()) {
                if (ownOption && (c.setting().equals("topic") || c.setting().equals(StoredSettings.VALUE_FIELD))) {
                    if (given.add(b)) { // topic and field go back together, in the namespace's own option
                        putBack.add(lookupOption(b, m));
                        // without :FIELD a --lookup stores --value-field's field, if one is given
                        withoutValueField |= storedField(m).isEmpty();
                    }
                } else {
                    putBack.add(c.putBack() + (bindings.size() > 1 ? " for '" + b.namespace() + "'" : ""));
                }
            }
        }
        if (!oneValueField) {
            // Without --value-field, the other --topic namespaces that store a field need it named too.
            published.forEach((b, m) -> {
                if (!b.fromLookup() && !given.contains(b) && storedField(m).isPresent()) {
                    putBack.add(lookupOption(b, m));
                }
            });
            withoutValueField = true;
        }
        if (withoutValueField && putBack.stream().noneMatch(p -> p.startsWith("without --value-field"))) {
            putBack.add("without --value-field");
        }
        boolean one = namespaces.size() == 1;
        throw new ConfigException("Refusing to start: " + String.join("; ", refused) + ": starting would change what "
                + "readers see. Start again " + String.join(" and ", putBack) + " (nothing was changed), or pass "
                + namespaces.stream().map(n -> "--rebuild " + n).collect(Collectors.joining(" ")) + " to rebuild "
                + (one ? "it from its topic" : "them from their topics") + " with the new settings (readers keep the "
                + "old values until the new generation is published)");
    }

    /** The dotted JSON field {@code m}'s namespace stores, or empty for the raw value. */
    private static Optional<String> storedField(Manifest m) {
        return Optional.ofNullable(m.attributes().get(StoredSettings.VALUE_FIELD));
    }

    /**
     * {@code with --lookup NS=TOPIC[:FIELD]} giving {@code b}'s namespace its stored topic and field, {@code instead
     * of --topic ...} when it was given as {@code --topic}.
     */
    private static String lookupOption(TopicBinding b, Manifest stored) {
        return "with --lookup " + b.namespace() + "=" + stored.topic()
                + storedField(stored).map(f -> ":" + f).orElse("")
                + (b.fromLookup() ? "" : " instead of --topic " + b.topic() + "=" + b.namespace());
    }
}
