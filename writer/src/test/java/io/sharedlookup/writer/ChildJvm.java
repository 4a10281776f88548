package io.sharedlookup.writer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.awaitility.Awaitility;

/**
 * A real separate JVM running a main class on this test's class path with Chronicle's flags; stdout lines are kept
 * for assertions (and written to a log file on close).
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

    static ChildJvm start(String name, Path logDir, Class<?> main, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String f : System.getProperty("sharedlookup.test.jvmFlags", "").trim().split("\\s+")) {
            if (!f.isEmpty()) {
                cmd.add(f);
            }
        }
        cmd.add("-Xmx128m");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-Dchronicle.analytics.disable=true");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        cmd.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectErrorStream(true);
        return new ChildJvm(name, logDir, pb.start());
    }

    List<String> lines() {
        return List.copyOf(lines);
    }

    boolean printed(Predicate<String> condition) {
        return lines.stream().anyMatch(condition);
    }

    void awaitLine(Duration atMost, Predicate<String> condition) {
        Awaitility.await(name + " to print a matching line").atMost(atMost).pollInterval(Duration.ofMillis(20))
                .until(() -> lines.stream().anyMatch(condition) || !process.isAlive());
        if (lines.stream().noneMatch(condition)) {
            throw new AssertionError(name + " exited with " + process.exitValue() + " first; output: " + lines);
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL: no shutdown hook, no clean close. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** SIGTERM, then the exit code; fails when the process takes longer than {@code atMost}. */
    int terminate(Duration atMost) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(atMost.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " did not exit within " + atMost + " of SIGTERM");
        }
        return process.exitValue();
    }

    int waitFor() throws InterruptedException {
        return process.waitFor();
    }

    @Override
    public void close() throws InterruptedException, IOException {
        if (process.isAlive()) {
            kill();
        }
        Files.createDirectories(logDir);
        Files.write(logDir.resolve(name + ".log"), lines);
    }
}
