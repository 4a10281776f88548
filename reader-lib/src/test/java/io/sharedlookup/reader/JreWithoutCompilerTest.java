package io.sharedlookup.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Druid's and many application images are JRE-only. Chronicle would compile a generated class with javac when a map
 * is opened; reader-lib ships it pre-compiled (plus a javac stand-in for Chronicle's compiler utilities), so a JVM
 * without the jdk.compiler module opens and reads a store.
 */
class JreWithoutCompilerTest {
    @TempDir
    Path store;

    @Test
    void aJvmWithoutJdkCompilerOpensAndReadsAStore() throws Exception {
        Path logs = Files.createDirectories(Path.of("target", "child-logs", "jre-without-compiler"));
        List<String> options = new ArrayList<>();
        options.add("--limit-modules");
        options.add("java.se,jdk.unsupported,jdk.management,jdk.zipfs");
        for (String flag : ChildJvm.chronicleFlags()) {
            if (!flag.contains("jdk.compiler")) { // the module is absent on such a JRE
                options.add(flag);
            }
        }
        try (TestStores.Published ignored = TestStores.publish(store, "users", Map.of("1", "Ada", "2", "Grace"));
             ChildJvm jre = ChildJvm.start("jre-reader", logs, options, JreOnlyReaderMain.class,
                     store.toString(), "users", "1", "2", "3")) {
            assertThat(jre.waitFor()).as("exit code; see %s", logs).isZero();
            assertThat(jre.awaitLine(Duration.ofSeconds(5), l -> l.equals("DONE"))).isEqualTo("DONE");
            assertThat(jre.lines()).containsSubsequence(
                    "JDK_COMPILER_PRESENT=false", "LOOKUP 1=Ada", "LOOKUP 2=Grace", "LOOKUP 3=null", "DONE");
        }
    }
}
