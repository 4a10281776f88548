package io.sharedlookup.reader;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.awaitility.Awaitility;

/**
 * A real separate JVM running a test main class on this test's class path with Chronicle's flags. Its stdout lines
 * are collected for assertions; stderr goes to a file beside the test output. Killed with SIGKILL on {@link #kill}.
 */
final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final String name;
    private final Path logDir;

    private ChildJvm(String name, Path logDir, Process process) {
        this.name = name;
        this.logDir = logDir;
        this.process = process;
        Thread pump = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // process gone
            }
        }, "stdout of " + name);
        pump.setDaemon(true);
        pump.start();
    }

    static List<String> chronicleFlags() {
        String flags = System.getProperty("sharedlookup.test.jvmFlags", "");
        List<String> out = new ArrayList<>();
        for (String f : flags.trim().split("\\s+")) {
            if (!f.isEmpty()) {
                out.add(f);
            }
        }
        return out;
    }

    static ChildJvm start(String name, Path logDir, List<String> jvmOptions, Class<?> main, String... args)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("-Xmx128m");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Dchronicle.analytics.disable=true");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        cmd.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectError(logDir.resolve(name + ".stderr.log").toFile());
        return new ChildJvm(name, logDir, pb.start());
    }

    static ChildJvm start(String name, Path logDir, Class<?> main, String... args) throws IOException {
        return start(name, logDir, chronicleFlags(), main, args);
    }

    List<String> lines() {
        return List.copyOf(lines);
    }

    /** Waits for a stdout line matching {@code condition} and returns the last such line. */
    String awaitLine(Duration atMost, Predicate<String> condition) {
        Awaitility.await(name + " to print a matching line").atMost(atMost).pollInterval(Duration.ofMillis(10))
                .until(() -> lines.stream().anyMatch(condition) || !process.isAlive());
        return lines.stream().filter(condition).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError(name + " exited with " + process.exitValue()
                        + " before printing the expected line; its output: " + lines));
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL: no shutdown hooks, no unlocking. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    int waitFor() throws InterruptedException {
        return process.waitFor();
    }

    @Override
    public void close() throws InterruptedException, IOException {
        if (process.isAlive()) {
            kill();
        }
        java.nio.file.Files.write(logDir.resolve(name + ".stdout.log"), lines);
    }
}
