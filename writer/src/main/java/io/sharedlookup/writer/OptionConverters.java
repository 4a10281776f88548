package io.sharedlookup.writer;

import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.ITypeConverter;

/**
 * The converters of {@link WriterCommand}'s options: each turns one option's text into its value or refuses it with a
 * {@link ConfigException}. Kept apart from the option declarations so that the command stays a readable list of
 * options and the checks of how each value is written can be read (and grown) on their own.
 */
final class OptionConverters {
    private OptionConverters() {}

    /*
     * The converters throw ConfigException, whose one-line message WriterMain reports as it is (picocli keeps it as
     * the cause of its ParameterException).
     */

    /** {@code TOPIC[=NAMESPACE]}; a blank list entry is null, skipped by {@link WriterCommand#toConfig}. */
    static final class TopicConverter implements ITypeConverter<TopicBinding> {
        @Override
        public TopicBinding convert(String text) {
            return text.isBlank() ? null : TopicBinding.parse(text);
        }
    }

    /** {@code NAMESPACE=TOPIC[:FIELD]}; a blank list entry is null, skipped by {@link WriterCommand#toConfig}. */
    static final class LookupConverter implements ITypeConverter<TopicBinding> {
        @Override
        public TopicBinding convert(String text) {
            return text.isBlank() ? null : TopicBinding.parseLookup(text);
        }
    }

    /** {@code KEY=VALUE}, both trimmed. */
    static final class KafkaPropertyConverter implements ITypeConverter<Map.Entry<String, String>> {
        @Override
        public Map.Entry<String, String> convert(String kv) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new ConfigException("Invalid --kafka-property '" + kv + "': use KEY=VALUE, e.g. "
                        + "--kafka-property security.protocol=SASL_SSL");
            }
            return Map.entry(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
        }
    }

    /** A port number from 0 (a free one) to 65535. */
    static final class PortConverter implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            try {
                int port = Integer.parseInt(text.trim());
                if (port >= 0 && port <= 65535) {
                    return port;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new ConfigException("Invalid --http-port '" + text + "': use a port number from 0 to 65535");
        }
    }

    /**
     * A whole number of seconds for {@code option}, at least {@code min} (or 0 where that means never); the message of
     * a value out of bounds ends with {@code advice}.
     */
    abstract static class SecondsConverter implements ITypeConverter<Integer> {
        private final String option;
        private final int min;
        private final boolean zeroForNever;
        private final String advice;

        SecondsConverter(String option, int min, boolean zeroForNever, String advice) {
            this.option = option;
            this.min = min;
            this.zeroForNever = zeroForNever;
            this.advice = advice;
        }

        @Override
        public Integer convert(String text) {
            try {
                int seconds = Integer.parseInt(text.trim());
                if (seconds >= min || zeroForNever && seconds == 0) {
                    return seconds;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new ConfigException(
                    "Invalid " + option + " '" + text + "': use a whole number of seconds, at least " + min + advice);
        }
    }

    static final class StuckAfterConverter extends SecondsConverter {
        StuckAfterConverter() {
            super("--stuck-after", 1, false, ", e.g. 60");
        }
    }

    static final class HoldLimitConverter extends SecondsConverter {
        HoldLimitConverter() {
            super(
                    "--ingest-hold-limit",
                    WriterConfig.MIN_INGEST_HOLD_LIMIT_SECONDS,
                    true,
                    " (a disk that stalls for seconds is no reason to restart), e.g. 1800, or 0 for never");
        }
    }

    /** A whole number of applier threads, 1 to {@link WriterConfig#MAX_APPLY_THREADS}, or auto (from the cores). */
    static final class ApplyThreadsConverter implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            if (text.trim().equalsIgnoreCase("auto")) {
                return WriterConfig.AUTO_APPLY_THREADS;
            }
            try {
                int n = Integer.parseInt(text.trim());
                if (n >= 1 && n <= WriterConfig.MAX_APPLY_THREADS) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new ConfigException("Invalid --apply-threads '" + text + "': use a whole number from 1 (every "
                    + "record on the ingest thread) to " + WriterConfig.MAX_APPLY_THREADS
                    + ", or auto (one per core but one)");
        }
    }

    /**
     * A positive size in bytes, optionally with a KiB, MiB or GiB suffix, that fits a Java array: at most
     * {@code Integer.MAX_VALUE}, one byte short of 2GiB (so 2GiB itself is refused, and the message says so).
     */
    static final class ByteSizeConverter implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            String t = text.trim();
            long unit = 1;
            String lower = t.toLowerCase(Locale.ROOT);
            for (String[] suffix : new String[][] {{"gib", "1073741824"}, {"mib", "1048576"}, {"kib", "1024"}}) {
                if (lower.endsWith(suffix[0])) {
                    unit = Long.parseLong(suffix[1]);
                    t = t.substring(0, t.length() - 3).trim();
                    break;
                }
            }
            try {
                // multiplyExact: a wrapped product (17179869185GiB is 2^64 + 1GiB) must not pass as a small size.
                long bytes = Math.multiplyExact(Long.parseLong(t), unit);
                if (bytes > 0 && bytes <= Integer.MAX_VALUE) {
                    return (int) bytes;
                }
            } catch (NumberFormatException | ArithmeticException e) {
                // reported below
            }
            throw new ConfigException("Invalid --max-value-bytes '" + text + "': use a positive size such as 1048576 "
                    + "or 1MiB, at most 2147483647 (2GiB minus one byte, e.g. 2047MiB)");
        }
    }
}
