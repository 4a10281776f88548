package io.sharedlookup.writer.ingest;

/**
 * The two clocks {@link TopicCurrency} reads: the wall clock, in which {@code updated.at} is stamped and which another
 * start (or another host) reads back, and the monotonic clock, on which gaps inside a run are measured. A wall clock
 * may be stepped while the writer runs (NTP correcting a clock that ran ahead, an operator's {@code date -s}); measured
 * on it, a step forward would invent a gap (a needless rebuild) and a step back would hide one (deletes missed).
 * Injectable so that tests can step the wall clock.
 */
interface CurrencyClock {
    /** The wall clock: milliseconds since the epoch, as {@link System#currentTimeMillis}. */
    long wallMillis();

    /** The monotonic clock, as {@link System#nanoTime}: only differences mean anything. */
    long monotonicNanos();

    /** The system's clocks. */
    CurrencyClock SYSTEM = new CurrencyClock() {
        @Override
        public long wallMillis() {
            return System.currentTimeMillis();
        }

        @Override
        public long monotonicNanos() {
            return System.nanoTime();
        }
    };
}
