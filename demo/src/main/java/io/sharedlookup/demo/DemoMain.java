package io.sharedlookup.demo;

import ch.qos.logback.classic.Level;
import io.sharedlookup.demo.kafka.EmbeddedKafka;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.writer.WriterApp;
import io.sharedlookup.writer.WriterMain;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.NetworkClient;
import org.slf4j.LoggerFactory;

/**
 * The README's main command, {@code java -jar demo/target/shared-lookup-demo.jar --store-dir target/demo-store}: a
 * real single-node KRaft broker in this JVM (data in a temporary directory deleted at exit), the compacted topic
 * {@value DemoFeed#TOPIC} filled and kept changing, and the writer itself consuming it, started through its own entry
 * point ({@link WriterMain#launch}) with {@code --bootstrap-servers} and {@code --topic} set here and every other
 * argument passed on as writer options. Every 5 s it prints lookups resolved through reader-lib. SIGTERM (Ctrl-C)
 * stops the feed, the writer (cleanly: its next start resumes) and the broker, in that order.
 *
 * <p>Exit codes are the writer's: 0 help, 1 failed to start, 2 bad configuration.
 */
public final class DemoMain implements AutoCloseable {
    /** Set by the demo itself: its broker, its topic. */
    private static final List<String> OWN_OPTIONS = List.of("--bootstrap-servers", "--topic");

    private static final List<String> HELP_OPTIONS = List.of("--help", "-h", "--version", "-V");

    private Path kafkaDir;
    private EmbeddedKafka kafka;
    private DemoFeed feed;
    private WriterApp writer;
    private SharedLookupStore store;

    private DemoMain() {}

    public static void main(String[] args) {
        int rc = run(args, System.getenv(), System.out, System.err);
        if (rc >= 0) {
            System.exit(rc);
        }
        // Running: the writer's non-daemon threads keep the JVM up until SIGTERM runs the shutdown hook.
    }

    /** Starts the demo; returns an exit code, or -1 while it runs. */
    static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        for (String arg : args) {
            String name = arg.split("=", 2)[0];
            if (OWN_OPTIONS.contains(name)) {
                err.println("error: the demo sets " + name + " itself (its own broker, topic '" + DemoFeed.TOPIC
                        + "'): leave it out, or run writer/target/shared-lookup-writer.jar against your Kafka");
                return 2;
            }
            if (HELP_OPTIONS.contains(name)) {
                out.println("Usage: java -jar shared-lookup-demo.jar --store-dir DIR [writer options]: an embedded "
                        + "Kafka broker, topic '" + DemoFeed.TOPIC + "' kept changing, and the writer on it. The "
                        + "writer's options (--bootstrap-servers and --topic are set by the demo):");
                // Help and version only print: nothing starts.
                return WriterMain.launch(args, env, out, err).exitCode();
            }
        }
        DemoMain demo = new DemoMain();
        int rc;
        try {
            rc = demo.start(args, env, out, err);
        } catch (Exception | Error e) {
            err.println("error: the demo could not start: " + e);
            e.printStackTrace(err);
            rc = 1;
        }
        if (rc >= 0) {
            demo.close();
            return rc;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(demo::close, "shared-lookup-demo-shutdown"));
        return -1;
    }

    private int start(String[] args, Map<String, String> env, PrintStream out, PrintStream err) throws Exception {
        // Each step takes seconds on a small machine: say what is happening rather than leave the terminal silent.
        out.println("Starting an embedded Kafka broker (a few seconds)...");
        kafkaDir = Files.createTempDirectory("shared-lookup-demo-kafka-");
        kafka = EmbeddedKafka.start(kafkaDir);
        out.println("Embedded Kafka broker: " + kafka.bootstrapServers());
        out.println("Producing " + DemoFeed.USERS + " records to topic '" + DemoFeed.TOPIC + "'...");
        // Filled before the writer starts, so that it has something to catch up with.
        feed = DemoFeed.createAndFill(kafka.bootstrapServers());
        out.println("Produced " + DemoFeed.USERS + " records. Starting the writer...");
        List<String> writerArgs =
                new ArrayList<>(List.of("--bootstrap-servers", kafka.bootstrapServers(), "--topic", DemoFeed.TOPIC));
        writerArgs.addAll(List.of(args));
        WriterMain.Launch launch = WriterMain.launch(writerArgs.toArray(String[]::new), env, out, err);
        if (launch.app() == null) {
            return launch.exitCode();
        }
        writer = launch.app();
        Path storeDir = launch.config().storeDir();
        String base = writer.httpAddress();
        out.println("Demo: topic '" + DemoFeed.TOPIC + "' holds user ids 1.." + DemoFeed.USERS
                + " -> names and changes a few times a second. Try:");
        for (String path : List.of("/lookup/users/42", "/ready", "/namespaces", "/metrics")) {
            out.println("  curl " + base + path);
        }
        out.println("Readers: SharedLookupStore.open(Path.of(\"" + storeDir + "\")).lookup(\"" + DemoFeed.TOPIC
                + "\").get(\"42\")");
        // A reader of its own, as any application would open the store: what it prints is what readers see.
        store = SharedLookupStore.open(storeDir);
        WriterApp running = writer;
        feed.showLookups(store, out, () -> ReadyProgress.printUntilReady(running, DemoFeed.TOPIC, DemoFeed.USERS, out));
        return -1;
    }

    /** The feed first (nothing new arrives), then the writer (a clean stop), then the broker it was reading. */
    @Override
    public synchronized void close() {
        if (feed != null) {
            feed.close();
            feed = null;
        }
        if (writer != null) {
            writer.stop();
            writer = null;
        }
        if (store != null) {
            store.close();
            store = null;
        }
        if (kafka != null) {
            stopMutingItsDoubleClose(kafka);
            kafka = null;
            deleteRecursively(kafkaDir);
        }
    }

    /**
     * Stops the broker. Kafka's broker closes its own controller-registration client twice as it stops, and the
     * second close WARNs "Attempting to close NetworkClient that has already been closed": harmless, but it would be
     * the last line a user sees. That logger's warnings are muted for the stop only; the writer's consumer, which logs
     * through it too, has stopped by then.
     */
    private static void stopMutingItsDoubleClose(EmbeddedKafka kafka) {
        if (!(LoggerFactory.getLogger(NetworkClient.class) instanceof ch.qos.logback.classic.Logger networkClient)) {
            kafka.close();
            return;
        }
        Level level = networkClient.getLevel();
        networkClient.setLevel(Level.ERROR);
        try {
            kafka.close();
        } finally {
            networkClient.setLevel(level);
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory: best effort
        }
    }
}
