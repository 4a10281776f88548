package io.sharedlookup.writer.ingest;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says, in one WARN when an outage starts and then one a period (a minute by default), that Kafka is unreachable and
 * for how long, and in one INFO that it is reachable again. While no broker answers, Kafka's client WARNs "Connection
 * to node -1 (…) could not be established. Node may not be available." several times a second and the writer's own
 * retries would WARN each time too; both come here instead ({@link KafkaConnectionWarnings} hands over the client's),
 * so that the writer's other warnings stay readable.
 *
 * <p>One instance per JVM ({@link #shared()}): the client's warnings reach it through logback, which knows no writer.
 * Thread-safe: the Kafka clients' network threads, the ingest thread and the start all call it.
 */
public final class BrokerOutage {
    /** The period in milliseconds, for tests that cannot wait a minute. */
    public static final String PERIOD_PROPERTY = "sharedlookup.kafka.outageLogPeriodMillis";

    private static final long DEFAULT_PERIOD_MILLIS = 60_000;
    /**
     * A success clears the outage only after this long without a failure: the client fails a connection and then
     * succeeds at the next one (its reconnect backoff is at most 1 s by default), and a failure just before an
     * answer must not be told as a new outage right after the "reachable again".
     */
    private static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** At most one "is unreachable" (an outage's first WARN) this often, for a broker that comes and goes. */
    static final long FLAP_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static final BrokerOutage SHARED = new BrokerOutage(
            LoggerFactory.getLogger(BrokerOutage.class),
            Long.getLong(PERIOD_PROPERTY, DEFAULT_PERIOD_MILLIS),
            System::nanoTime);

    private final Logger log;
    private final long periodNanos;
    private final LongSupplier clock;
    /** The configured bootstrap servers, named in every message; null until the writer says (the demo's broker). */
    private String bootstrap;

    private boolean down;
    private long downSince;
    private long lastFailure;
    /** The last failure of any kind counted in this outage: when it was last seen, for its length. */
    private long lastAttempt;
    /** When this outage's last WARN was logged. */
    private long lastWarn;

    private boolean warnedThisOutage;
    /** Failures since this outage's last WARN. */
    private long failures;
    /** When the last outage's first WARN was logged, or {@link Long#MIN_VALUE} before any. */
    private long lastStartWarn = Long.MIN_VALUE;
    /** Outages that ended before their first WARN was due, since the last first WARN. */
    private long untoldOutages;

    BrokerOutage(Logger log, long periodMillis, LongSupplier nanoClock) {
        this.log = log;
        this.periodNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, periodMillis));
        this.clock = nanoClock;
    }

    /** The JVM's one instance (see the class comment). */
    public static BrokerOutage shared() {
        return SHARED;
    }

    /** The bootstrap servers the messages name. */
    public synchronized void bootstrapServers(String servers) {
        bootstrap = servers;
    }

    /**
     * A connection or a request to Kafka failed because no broker answered; {@code detail} says how (the node's
     * address, the timeout). Starts an outage if none is declared. Its first WARN comes at once, unless another
     * outage's came less than {@link #FLAP_NANOS} ago (a flapping broker): then once that is past, if it still lasts.
     * Then one WARN a period while it lasts.
     */
    public synchronized void failed(String detail) {
        long now = clock.getAsLong();
        if (!down) {
            down = true;
            downSince = now;
            warnedThisOutage = false;
            failures = 0;
        }
        lastFailure = now;
        lastAttempt = now;
        failures++;
        warnIfDue(now, detail);
    }

    /**
     * A connection to one broker of the cluster failed ({@code detail} says which). That alone is no outage: a
     * cluster with a broker down still serves, and Kafka's client retries the dead broker for as long as it is down.
     * So it only counts within an outage already declared ({@link #failed}), and does not keep that outage from ending
     * (the dead broker's retries would keep it forever).
     *
     * @return whether it was counted in a declared outage (told here); false: it is the caller's to log
     */
    public synchronized boolean nodeFailed(String detail) {
        if (!down) {
            return false;
        }
        failures++;
        lastAttempt = clock.getAsLong();
        warnIfDue(lastAttempt, detail);
        return true;
    }

    private void warnIfDue(long now, String detail) {
        if (!warnedThisOutage) {
            if (lastStartWarn != Long.MIN_VALUE && now - lastStartWarn < FLAP_NANOS) {
                return;
            }
            log.warn(
                    "{} is unreachable ({}); the writer serves what is published and keeps reconnecting, "
                            + "and says so once every {} s while it lasts (Kafka's client warnings about it are summarised "
                            + "here){}",
                    servers(),
                    detail,
                    seconds(periodNanos),
                    untoldOutages == 0
                            ? ""
                            : "; " + untoldOutages + " shorter outage" + (untoldOutages == 1 ? "" : "s") + " since the "
                                    + "last such message went untold");
            lastStartWarn = now;
            untoldOutages = 0;
        } else if (now - lastWarn < periodNanos) {
            return;
        } else {
            log.warn(
                    "{} has been unreachable for {} s ({} failed attempt{} since the last message; the " + "last: {})",
                    servers(),
                    seconds(now - downSince),
                    failures,
                    failures == 1 ? "" : "s",
                    detail);
        }
        warnedThisOutage = true;
        lastWarn = now;
        failures = 0;
    }

    /**
     * Kafka answered. Ends the outage, with an INFO when it was told, unless a failure came too recently for the
     * answer to mean it is over.
     *
     * @return whether there was an outage (ended now or not): its end is this class's to tell
     */
    public synchronized boolean reachable() {
        long now = clock.getAsLong();
        if (!down) {
            return false;
        }
        if (now - lastFailure < QUIET_NANOS) {
            return true;
        }
        down = false;
        failures = 0;
        if (!warnedThisOutage) {
            untoldOutages++;
        } else {
            log.info("{} is reachable again, after {} s", servers(), seconds(lastAttempt - downSince));
        }
        return true;
    }

    /**
     * {@code problem} with how long Kafka has been unreachable appended (for /ready), or as it is while it is not.
     */
    public synchronized String withDuration(String problem) {
        return down ? problem + " (unreachable for " + seconds(clock.getAsLong() - downSince) + " s)" : problem;
    }

    private String servers() {
        return bootstrap == null ? "Kafka" : "Kafka at " + bootstrap;
    }

    private static long seconds(long nanos) {
        return TimeUnit.NANOSECONDS.toSeconds(nanos);
    }
}
