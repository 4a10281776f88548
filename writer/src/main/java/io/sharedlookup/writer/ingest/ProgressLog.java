package io.sharedlookup.writer.ingest;

/**
 * Every {@value #PERIOD_MILLIS} ms: logs how far reading has come per topic ({@link PartitionOffsets#logProgress}),
 * so that a long build shows it is moving.
 */
final class ProgressLog implements PeriodicJob {
    static final long PERIOD_MILLIS = 5_000;

    private final Reading reading;

    ProgressLog(Reading reading) {
        this.reading = reading;
    }

    @Override
    public void run(long nowNanos) {
        reading.offsets.logProgress(nowNanos, reading.byTopic.topics());
    }
}
