package io.sharedlookup.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.TestStores;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chronicle pulls JNA, jnr-ffi and thread affinity, and loads their native libraries when it starts (about 200 ms of a
 * reader JVM's start here); only the write side uses them (fallocate, msync). docs/reader.md tells applications they
 * may leave them out: this proves a reader without them opens a store, reads, and follows a new generation.
 */
class ReaderWithoutNativeBindingsTest {
    /** The jars docs/reader.md says a reader may exclude. */
    static final String[] NATIVE_BINDINGS = {"/jna-", "/jna-platform-", "/jnr-", "/jffi-", "/affinity-"};

    @TempDir
    Path store;

    @Test
    void aReaderWithoutJnaOrJnrReadsAndFollowsNewGenerations() throws Exception {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> Arrays.stream(NATIVE_BINDINGS).noneMatch(entry.replace('\\', '/')::contains))
                .collect(Collectors.joining(File.pathSeparator));
        assertThat(classPath).isNotEqualTo(System.getProperty("java.class.path"));
        Path logs = Files.createDirectories(Path.of("target", "child-logs", "no-native-bindings"));
        try (TestStores.Published published = TestStores.publish(store, "users", Map.of("1", "Ada", "2", "Grace"));
             ChildJvm reader = ChildJvm.start("no-native-bindings", logs, ChildJvm.chronicleFlags(), classPath,
                     NoNativeBindingsReaderMain.class, store.toString(), "users")) {
            reader.awaitLine(Duration.ofSeconds(60), l -> l.startsWith("LOOKUP 1="));
            published.republish(Map.of("1", "Ada Lovelace", "2", "Grace"));
            assertThat(reader.waitFor()).as("exit code; output %s", reader.lines()).isZero();
            assertThat(reader.lines()).containsSubsequence("JNA_PRESENT=false", "JNR_PRESENT=false", "LOOKUP 1=Ada",
                    "SWITCHED 1=Ada Lovelace", "DONE");
        }
    }
}
