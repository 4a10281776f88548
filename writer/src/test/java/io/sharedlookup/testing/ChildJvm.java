package io.sharedlookup.testing;

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
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.awaitility.Awaitility;

/**
 * A real separate JVM running a main class on the test's class path with Chronicle's flags (from the system property
 * {@code sharedlookup.test.jvmFlags} that Surefire sets). Its output lines (stdout and stderr) are kept for assertions
 * and written to {@code <logDir>/<name>.log} on close. Shared by the modules' tests through reader-lib's test jar.
 */
public final class ChildJvm implements AutoCloseable {
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
        }, "output of " + name);
        pump.setDaemon(true);
        pump.start();
    }

    /** Chronicle's JVM flags, as Surefire passes them to the test JVM. */
    public static List<String> chronicleFlags() {
        List<String> out = new ArrayList<>();
        for (String f : System.getProperty("sharedlookup.test.jvmFlags", "").trim().split("\\s+")) {
            if (!f.isEmpty()) {
                out.add(f);
            }
        }
        return out;
    }

    /** Starts {@code main} with the given JVM options (instead of Chronicle's flags). */
    public static ChildJvm start(String name, Path logDir, List<String> jvmOptions, Class<?> main, String... args)
            throws IOException {
        return start(name, logDir, jvmOptions, System.getProperty("java.class.path"), main, args);
    }

    /** Starts {@code main} with the given JVM options and class path. */
    public static ChildJvm start(String name, Path logDir, List<String> jvmOptions, String classPath, Class<?> main,
                                 String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("-Xmx128m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Dchronicle.analytics.disable=true");
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(main.getName());
        cmd.addAll(Arrays.asList(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectErrorStream(true);
        return new ChildJvm(name, logDir, pb.start());
    }

    /** Starts {@code main} with Chronicle's flags. */
    public static ChildJvm start(String name, Path logDir, Class<?> main, String... args) throws IOException {
        return start(name, logDir, chronicleFlags(), main, args);
    }

    public List<String> lines() {
        return List.copyOf(lines);
    }

    public boolean printed(Predicate<String> condition) {
        return lines.stream().anyMatch(condition);
    }

    /**
     * Waits for an output line matching {@code condition} and returns the last such line.
     *
     * @throws AssertionError when the process exits first
     */
    public String awaitLine(Duration atMost, Predicate<String> condition) {
        Awaitility.await(name + " to print a matching line").atMost(atMost).pollInterval(Duration.ofMillis(10))
                .until(() -> lines.stream().anyMatch(condition) || !process.isAlive());
        return lines.stream().filter(condition).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError(name + " exited with " + process.exitValue()
                        + " before printing the expected line; its output: " + lines));
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL: no shutdown hooks, no unlocking, no clean close. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** SIGTERM, then the exit code; fails when the process takes longer than {@code atMost}. */
    public int terminate(Duration atMost) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " did not exit within " + atMost + " of SIGTERM");
        }
        return process.exitValue();
    }

    public int waitFor() throws InterruptedException {
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
