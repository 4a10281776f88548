package io.sharedlookup.reliability;

import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.WriterProcess;
import io.sharedlookup.writer.WriterMain;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The child JVMs a scenario starts, logging to {@link Suite#LOGS}. Scenarios close their children in {@code finally};
 * {@link ChildJvm} also kills any survivor by PID when the test JVM exits (e.g. Surefire's timeout), and
 * {@link Suite#broker()} kills them all before its broker stops, so nothing outlives the suite.
 */
final class Children {
    private Children() {}

    static ChildJvm start(String name, Class<?> main, String... args) throws IOException {
        return ChildJvm.start(name, Suite.LOGS, main, args);
    }

    /** A reader JVM as users run one: no JVM flag (reader-lib needs none). */
    static ChildJvm startWithoutFlags(String name, Class<?> main, String... args) throws IOException {
        return ChildJvm.start(name, Suite.LOGS, List.of(), main, args);
    }

    /** The writer in a JVM of its own: its real main class, with Chronicle's flags, as {@code java -jar} runs it. */
    static WriterProcess writer(String name, String bootstrap, Path store, String topic, String... extra)
            throws IOException {
        return WriterProcess.start(args -> start(name, WriterMain.class, args), bootstrap, store, topic, extra);
    }

    /** SIGKILL. */
    static void kill(ChildJvm jvm) {
        jvm.kill();
    }

    static void close(ChildJvm jvm) {
        if (jvm != null) {
            jvm.close();
        }
    }
}
