package io.sharedlookup.druid.cluster;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One service of the cluster as a child process: its output (stdout and stderr) goes line by line to
 * {@code <logDir>/<name>.log} as it runs, so that a failed run can be read afterwards, and is kept for
 * {@link #tail} and {@link #lines}. {@link #close} stops the whole process tree: SIGTERM, then SIGKILL.
 */
final class ServiceProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path logFile;
    private final List<String> lines = new ArrayList<>();
    private final Writer stdin;
    private final Thread pump;

    private ServiceProcess(String name, Process process, Path logFile) throws IOException {
        this.name = name;
        this.process = process;
        this.logFile = logFile;
        this.stdin = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        Writer log = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8);
        pump = new Thread(() -> {
            try (log; BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (lines) {
                        lines.add(line);
                    }
                    log.write(line);
                    log.write('\n');
                    log.flush();
                }
            } catch (IOException e) {
                // the process is gone
            }
        }, "output of " + name);
        pump.setDaemon(true);
        pump.start();
    }

    /** Starts {@code command} in {@code workDir}; its output goes to {@code <logDir>/<name>.log}. */
    static ServiceProcess start(String name, List<String> command, Path workDir, Path logDir) throws IOException {
        Files.createDirectories(workDir);
        Files.createDirectories(logDir);
        Path logFile = logDir.resolve(name + ".log");
        Files.writeString(logFile.resolveSibling(name + ".command"), String.join("\n", command) + "\n");
        Process p = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true).start();
        return new ServiceProcess(name, p, logFile);
    }

    String name() {
        return name;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    Path logFile() {
        return logFile;
    }

    /** The output lines so far that match {@code filter}. */
    List<String> lines(Predicate<String> filter) {
        synchronized (lines) {
            return lines.stream().filter(filter).toList();
        }
    }

    /** The last {@code n} output lines, for failure messages. */
    String tail(int n) {
        synchronized (lines) {
            List<String> last = lines.subList(Math.max(0, lines.size() - n), lines.size());
            return "---- last " + last.size() + " lines of " + name + " (" + logFile + ")"
                    + (process.isAlive() ? "" : ", exited with " + process.exitValue()) + " ----\n"
                    + String.join("\n", last) + "\n---- end of " + name + " ----";
        }
    }

    /** The last {@code n} output lines that match {@code filter}, for failure messages. */
    String excerpt(Predicate<String> filter, int n) {
        List<String> matching = lines(filter);
        List<String> last = matching.subList(Math.max(0, matching.size() - n), matching.size());
        return "---- last " + last.size() + " matching lines of " + name + " (all in " + logFile + ") ----\n"
                + String.join("\n", last) + "\n---- end of " + name + " ----";
    }

    /** Writes one line to the process's stdin. */
    void send(String line) {
        try {
            stdin.write(line);
            stdin.write('\n');
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(name + " does not read its input any more\n" + tail(40), e);
        }
    }

    /** Closes stdin: processes that read it take this as the signal to stop. */
    void closeInput() {
        try {
            stdin.close();
        } catch (IOException e) {
            // already gone
        }
    }

    /** Asks the process tree to stop (SIGTERM) without waiting; see {@link #close}. */
    void terminate() {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
    }

    /** Stops the process tree: SIGTERM, and SIGKILL whatever still runs after {@code grace}. */
    void stop(Duration grace) {
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.add(process.toHandle());
        tree.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + grace.toNanos();
        for (ProcessHandle h : tree) {
            try {
                h.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (Exception e) {
                h.destroyForcibly();
            }
        }
        try {
            process.waitFor(10, TimeUnit.SECONDS);
            pump.join(5_000);
            if (!process.isAlive()) {
                // 143: ended by SIGTERM; 137: had to be killed.
                Files.writeString(logFile, "---- " + name + " exited with " + process.exitValue() + " ----\n",
                        StandardCharsets.UTF_8, StandardOpenOption.APPEND);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the log stays without its last line
        }
    }

    /**
     * Waits until {@code up} holds; fails with the last lines of the service's output when it does not within
     * {@code atMost}, or when the process exits first.
     */
    void awaitUp(String what, Duration atMost, BooleanSupplier up) {
        awaitUp(what, atMost, Duration.ofMillis(200), up);
    }

    /** As {@link #awaitUp(String, Duration, BooleanSupplier)}, checking every {@code pollInterval}. */
    void awaitUp(String what, Duration atMost, Duration pollInterval, BooleanSupplier up) {
        try {
            Awaitility.await(name + ": " + what).atMost(atMost).pollDelay(Duration.ZERO).pollInterval(pollInterval)
                    .until(() -> !process.isAlive() || up.getAsBoolean());
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(name + " is not up within " + atMost + " (" + what + ")\n" + tail(80), e);
        }
        if (!process.isAlive()) {
            throw new AssertionError(name + " exited before it was up (" + what + ")\n" + tail(80));
        }
    }

    /** A free TCP port on the loopback interface (free now: the caller binds it soon after). */
    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on the loopback interface", e);
        }
    }

    /** Kills the process tree at once (SIGKILL); for the JVM shutdown hook. */
    void kill() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    @Override
    public void close() {
        closeInput();
        stop(Duration.ofSeconds(15));
    }
}
