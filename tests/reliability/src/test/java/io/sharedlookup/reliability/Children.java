package io.sharedlookup.reliability;

import io.sharedlookup.testing.ChildJvm;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every child JVM a scenario starts, by PID. Scenarios close their children in {@code finally}; this also kills any
 * survivor by PID when the test JVM exits (e.g. Surefire's timeout), so nothing outlives the suite.
 */
final class Children {
    private static final Set<Long> PIDS = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(Children::killAll, "kill reliability children"));
    }

    private Children() {
    }

    static ChildJvm start(String name, Class<?> main, String... args) throws IOException {
        ChildJvm jvm = ChildJvm.start(name, Suite.LOGS, main, args);
        PIDS.add(jvm.pid());
        return jvm;
    }

    /** A reader JVM as users run one: no JVM flag (reader-lib needs none). */
    static ChildJvm startWithoutFlags(String name, Class<?> main, String... args) throws IOException {
        ChildJvm jvm = ChildJvm.start(name, Suite.LOGS, java.util.List.of(), main, args);
        PIDS.add(jvm.pid());
        return jvm;
    }

    /** SIGKILL by PID and forget it. */
    static void kill(ChildJvm jvm) throws InterruptedException {
        jvm.kill();
        PIDS.remove(jvm.pid());
    }

    static void close(ChildJvm jvm) {
        if (jvm == null) {
            return;
        }
        try {
            jvm.close();
        } catch (Exception e) {
            ProcessHandle.of(jvm.pid()).ifPresent(ProcessHandle::destroyForcibly);
        }
        PIDS.remove(jvm.pid());
    }

    static void killAll() {
        for (Long pid : PIDS) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        PIDS.clear();
    }

    static Path logs() {
        return Suite.LOGS;
    }
}
