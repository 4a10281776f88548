package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NamespaceNamesTest {
    @ParameterizedTest
    @ValueSource(strings = {"users", "item_names", "a.b-c_D9", "..x", "x..", "-"})
    void acceptsSafeNames(String name) {
        assertThat(NamespaceNames.requireValid(name)).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "a/b", "../etc", "a\\b", "a b", "ü", "a\u0000b", "users\n"})
    void refusesNamesThatAreNotSafeFileNames(String name) {
        assertThatThrownBy(() -> NamespaceNames.requireValid(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Invalid namespace name")
                .hasMessageContaining("[A-Za-z0-9._-]")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\u0000", "\n"));
    }

    @org.junit.jupiter.api.Test
    void refusesNullAndOverlongNames() {
        assertThat(NamespaceNames.isValid(null)).isFalse();
        assertThat(NamespaceNames.isValid("a".repeat(200))).isTrue();
        assertThat(NamespaceNames.isValid("a".repeat(201))).isFalse();
    }
}
