package io.sharedlookup.reliability;

import io.sharedlookup.testing.TestKafka;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;

/** Seeded updates and tombstones (one in ten) over 12,000 keys, paced at about 1000 records/s, until stopped. */
final class SeededUpdates extends Thread {
    private final TestKafka broker;
    private final String topic;
    private final Random random;
    private volatile boolean running = true;

    SeededUpdates(TestKafka broker, String topic, Random random) {
        super("updater");
        this.broker = broker;
        this.topic = topic;
        this.random = random;
    }

    @Override
    public void run() {
        long n = 0;
        while (running) {
            String key = "k" + random.nextInt(12_000);
            broker.send(topic, key, random.nextInt(10) == 0 ? null : "u-" + n);
            if (++n % 10 == 0) {
                LockSupport.parkNanos(10_000_000L); // load pacing, not synchronisation
            }
        }
    }

    /** Stops sending and waits until everything sent is acknowledged. */
    void stopAndJoin() throws InterruptedException {
        running = false;
        join();
        broker.flush();
    }
}
