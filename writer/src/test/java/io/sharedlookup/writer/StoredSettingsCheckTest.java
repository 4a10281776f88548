package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.namespace.StoredSettings;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link StoredSettingsCheck} tells the operator to do, over namespaces published by the writer's own store
 * classes: an instruction that can work for each kind of namespace ({@code --lookup} or {@code --topic}), and the check
 * made again once the namespaces are locked.
 */
class StoredSettingsCheckTest {
    @TempDir
    Path store;

    /** Publishes {@code namespace} as built from {@code topic} storing {@code field} (empty: the raw value). */
    private void built(String namespace, String topic, Optional<String> field) throws IOException {
        try (NamespaceDirectory w =
                NamespaceDirectory.open(new StoreLayout(store), namespace, StorePermissions.DEFAULT)) {
            GenerationFile g = w.createGeneration(GenerationSizing.forExpected(1, 8, 16), false);
            try (g) {
                g.put("k", "v", TestStores.TIMEOUT);
                w.publish(g, topic, Map.of(0, 1L), true, StoredSettings.attributes(field, false));
            }
        }
    }

    private static Map<String, String> attributes(TopicBinding b) {
        return StoredSettings.attributes(b.valueField(), false);
    }

    private String refusal(List<TopicBinding> bindings) {
        Throwable t = catchThrowable(() -> StoredSettingsCheck.requireUnchanged(
                new StoreLayout(store), bindings, StoredSettingsCheckTest::attributes, Set.of()));
        assertThat(t).isInstanceOf(ConfigException.class);
        return t.getMessage();
    }

    @Test
    void aLookupNamespaceIsToldItsOwnLookupOption() throws IOException {
        built("users_name", "users", Optional.of("name.display"));
        built("users_raw", "users", Optional.empty());

        String message = refusal(List.of(
                TopicBinding.lookup("users", "users_name", Optional.of("tier")),
                TopicBinding.lookup("accounts", "users_raw", Optional.empty())));

        assertThat(message)
                .contains("namespace 'users_name' was built with value.field=name.display, now " + "value.field=tier")
                .contains("namespace 'users_raw' was built with topic=users, now topic=accounts")
                .contains("Start again with --lookup users_name=users:name.display and with --lookup "
                        + "users_raw=users and without --value-field (nothing was changed)")
                .doesNotContain("with --value-field");
    }

    @Test
    void topicNamespacesWithDifferentStoredFieldsAreNotToldContradictoryValueFields() throws IOException {
        built("a", "ta", Optional.of("name"));
        built("b", "tb", Optional.empty());
        built("c", "tc", Optional.of("name"));

        // --value-field tier for all three: --value-field alone cannot give 'a' its name and 'b' its raw value
        String message = refusal(List.of(
                new TopicBinding("ta", "a", Optional.of("tier")),
                new TopicBinding("tb", "b", Optional.of("tier")),
                new TopicBinding("tc", "c", Optional.of("tier"))));

        assertThat(message)
                .contains("Start again with --lookup a=ta:name instead of --topic ta=a and with "
                        + "--lookup b=tb instead of --topic tb=b and with --lookup c=tc:name instead of --topic tc=c "
                        + "and without --value-field (nothing was changed)")
                .doesNotContain("with --value-field");
    }

    @Test
    void topicNamespacesThatAgreeKeepTheValueFieldHint() throws IOException {
        built("a", "ta", Optional.of("name"));
        built("b", "tb", Optional.of("name"));

        String message = refusal(List.of(new TopicBinding("ta", "a"), new TopicBinding("tb", "b")));

        assertThat(message)
                .contains("Start again with --value-field name for 'a' and with --value-field name "
                        + "for 'b' (nothing was changed)")
                .doesNotContain("--lookup");
    }

    @Test
    void settingsPublishedAfterTheFirstCheckAreRefusedOnceLocked() throws IOException {
        built("users", "users", Optional.of("name"));
        List<TopicBinding> bindings = List.of(new TopicBinding("users", "users", Optional.of("name")));
        assertThatCode(() -> StoredSettingsCheck.requireUnchanged(
                        new StoreLayout(store), bindings, StoredSettingsCheckTest::attributes, Set.of()))
                .doesNotThrowAnyException();

        // another writer, still holding the lock during the first check, publishes with another field and stops
        built("users", "users", Optional.of("name.display"));

        try (NamespaceDirectory locked =
                NamespaceDirectory.open(new StoreLayout(store), "users", StorePermissions.DEFAULT)) {
            assertThatThrownBy(() -> StoredSettingsCheck.requireUnchangedLocked(
                            bindings, List.of(locked), StoredSettingsCheckTest::attributes, Set.of()))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining(
                            "namespace 'users' was built with value.field=name.display, now " + "value.field=name")
                    .hasMessageContaining("Start again with --value-field name.display (nothing was changed)");
            // one the operator asked to rebuild is not checked
            assertThatCode(() -> StoredSettingsCheck.requireUnchangedLocked(
                            bindings, List.of(locked), StoredSettingsCheckTest::attributes, Set.of("users")))
                    .doesNotThrowAnyException();
        }
    }
}
