package io.sharedlookup.demo;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's data: a compacted topic {@value #TOPIC} of user ids to display names, filled once and then updated a
 * few times a second (renames, and now and then a deletion and re-creation) so that lookups visibly change.
 */
final class DemoFeed implements AutoCloseable {
    static final String TOPIC = "users";
    static final int USERS = 5000;
    private static final Logger log = LoggerFactory.getLogger(DemoFeed.class);
    private static final String[] FIRST = {
        "Ada",
        "Alan",
        "Grace",
        "Edsger",
        "Barbara",
        "Donald",
        "Frances",
        "John",
        "Margaret",
        "Ken",
        "Radia",
        "Dennis",
        "Hedy",
        "Tim",
        "Katherine",
        "Linus",
        "Anita",
        "Niklaus",
        "Sophie",
        "Guido"
    };
    private static final String[] LAST = {
        "Lovelace",
        "Turing",
        "Hopper",
        "Dijkstra",
        "Liskov",
        "Knuth",
        "Allen",
        "Backus",
        "Hamilton",
        "Thompson",
        "Perlman",
        "Ritchie",
        "Lamarr",
        "Berners-Lee",
        "Johnson",
        "Torvalds",
        "Borg",
        "Wirth",
        "Wilson",
        "van Rossum"
    };

    /** How often the demo prints lookups resolved through reader-lib. */
    private static final long SHOW_MILLIS = 5_000;

    private final KafkaProducer<String, String> producer;
    private final Thread thread;
    private volatile boolean running = true;
    /** The last change sent: {id, value or null}, so the printout can show it arriving in the store. */
    private volatile String[] lastChange;

    private Thread shower;

    private DemoFeed(String bootstrapServers) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "shared-lookup-demo");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        this.producer = new KafkaProducer<>(p);
        this.thread = new Thread(this::update, "shared-lookup-demo");
        this.thread.setDaemon(true);
    }

    /** Creates and fills the topic (before the writer starts, so that it has something to catch up with). */
    static DemoFeed createAndFill(String bootstrapServers) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrapServers);
        try (Admin admin = Admin.create(p)) {
            if (!admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(TOPIC)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, Optional.of(3), Optional.empty())
                                .configs(Map.of("cleanup.policy", "compact"))))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
        DemoFeed feed = new DemoFeed(bootstrapServers);
        Random random = new Random(42);
        for (int id = 1; id <= USERS; id++) {
            feed.producer.send(new ProducerRecord<>(TOPIC, Integer.toString(id), name(random)));
        }
        feed.producer.flush();
        log.info("Demo topic '{}' filled with {} users", TOPIC, USERS);
        feed.thread.start();
        return feed;
    }

    private static String name(Random random) {
        return FIRST[random.nextInt(FIRST.length)] + " " + LAST[random.nextInt(LAST.length)];
    }

    private void update() {
        Random random = new Random();
        Set<Integer> deleted = new java.util.HashSet<>();
        while (running) {
            int id = 1 + random.nextInt(USERS);
            String value = random.nextInt(20) == 0 && !deleted.contains(id) ? null : name(random);
            if (value == null) {
                deleted.add(id);
            } else {
                deleted.remove(id);
            }
            producer.send(new ProducerRecord<>(TOPIC, Integer.toString(id), value));
            lastChange = new String[] {Integer.toString(id), value};
            try {
                Thread.sleep(200); // a pace a person can follow in the logs and with curl
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** What the printing thread does before its first lookups (waits for the writer, saying how far it is). */
    @FunctionalInterface
    interface FirstStep {
        void run() throws InterruptedException;
    }

    /**
     * After {@code first}, prints, every few seconds, lookups resolved the way any reader JVM would (reader-lib on the
     * store files): a fixed id, and the id the feed changed last, so the demo shows lookups resolving and following
     * the topic.
     */
    void showLookups(SharedLookupStore store, PrintStream out, FirstStep first) {
        shower = new Thread(
                () -> {
                    try {
                        first.run();
                    } catch (InterruptedException e) {
                        return;
                    }
                    while (running) {
                        try {
                            Thread.sleep(SHOW_MILLIS);
                            Lookup users = store.lookup(TOPIC);
                            String[] change = lastChange;
                            StringBuilder line =
                                    new StringBuilder("reader-lib: users/42 = ").append(quoted(users.get("42")));
                            if (change != null) {
                                line.append("; last change sent: users/")
                                        .append(change[0])
                                        .append(" -> ")
                                        .append(quoted(change[1]))
                                        .append(", store has ")
                                        .append(quoted(arrived(users, change[0], change[1])));
                            }
                            out.println(line.append(" (").append(users.size()).append(" entries)"));
                        } catch (InterruptedException e) {
                            return;
                        } catch (RuntimeException e) {
                            // not published yet, or a lock timeout: the next round tries again
                            out.println("reader-lib: users not readable yet (" + e.getMessage() + ")");
                        }
                    }
                },
                "shared-lookup-demo-show");
        shower.setDaemon(true);
        shower.start();
    }

    /**
     * The store's value of {@code id} once it is {@code sent}, or after a second: a change sent a moment before the
     * printout may not be applied yet, and a printout saying the store disagrees looks like a defect.
     */
    private static String arrived(Lookup users, String id, String sent) throws InterruptedException {
        long deadline = System.nanoTime() + 1_000_000_000L;
        String value = users.get(id);
        while (!java.util.Objects.equals(value, sent) && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
            value = users.get(id);
        }
        return value;
    }

    private static String quoted(String value) {
        return value == null ? "(absent)" : "\"" + value + "\"";
    }

    @Override
    public void close() {
        running = false;
        if (shower != null) {
            shower.interrupt();
        }
        thread.interrupt();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(java.time.Duration.ofSeconds(2));
    }
}
