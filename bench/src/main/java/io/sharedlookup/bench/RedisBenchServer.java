package io.sharedlookup.bench;

import io.sharedlookup.testing.Ports;
import io.sharedlookup.testing.TempTrees;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

/**
 * A {@code redis-server} of its own for {@link LookupBenchmark}'s Redis peer: started from the PATH on a free loopback
 * port without persistence, in a temporary directory (its log there), and loaded through a pipeline. Its own class so
 * that the benchmark class holds what is measured, not how a server process is run.
 */
final class RedisBenchServer {
    private final Path dir;
    private final Process server;
    private final int port;

    private RedisBenchServer(Path dir, Process server, int port) {
        this.dir = dir;
        this.server = server;
        this.port = port;
    }

    /** The {@code redis-server} binary on the PATH, or null. */
    static String binary() {
        for (String part : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(part, "redis-server");
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        return null;
    }

    /**
     * Starts a server and waits (30 s at most) until it answers.
     *
     * @throws IllegalStateException when redis-server is not installed, or does not start
     */
    static RedisBenchServer start() throws IOException, InterruptedException {
        String binary = binary();
        if (binary == null) {
            throw new IllegalStateException("redis-server is not installed (not on the PATH): cannot run redisGet");
        }
        Path dir = Files.createTempDirectory("redis-bench");
        int port = Ports.freePort();
        Process server = new ProcessBuilder(
                        binary,
                        "--port",
                        Integer.toString(port),
                        "--bind",
                        "127.0.0.1",
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--dir",
                        dir.toString(),
                        "--loglevel",
                        "warning")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                jedis.ping();
                return new RedisBenchServer(dir, server, port);
            } catch (RuntimeException notYet) {
                if (!server.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "redis-server did not start; see " + dir.resolve("redis.log"), notYet);
                }
                Thread.sleep(50);
            }
        }
    }

    /** The loopback port it listens on. */
    int port() {
        return port;
    }

    /** Sets {@code entries} entries of {@code shape} with values of {@code valueBytes}, and checks the key count. */
    void load(KeyShapes shape, int valueBytes, int entries) {
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
            Pipeline pipeline = jedis.pipelined();
            for (int i = 0; i < entries; i++) {
                pipeline.set(shape.key(i), KeyShapes.value(i, valueBytes));
                if (i % 10_000 == 9_999) {
                    pipeline.sync();
                }
            }
            pipeline.sync();
            if (jedis.dbSize() != entries) {
                throw new IllegalStateException("Redis holds " + jedis.dbSize() + " keys, expected " + entries);
            }
        }
    }

    /** Stops the server (SIGTERM, SIGKILL after 10 s) and deletes its directory. */
    void stop() throws InterruptedException {
        server.destroy();
        if (!server.waitFor(10, TimeUnit.SECONDS)) {
            server.destroyForcibly().waitFor();
        }
        TempTrees.delete(dir);
    }
}
