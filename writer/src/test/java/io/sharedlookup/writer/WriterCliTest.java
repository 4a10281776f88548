package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WriterCliTest {
    @TempDir
    Path tmp;

    private static WriterConfig parse(Map<String, String> env, String... args) {
        return (WriterConfig) WriterMain.parse(args, env, new PrintStream(new ByteArrayOutputStream()));
    }

    private record Run(int exit, String out, String err) {}

    private static Run run(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = WriterMain.run(
                args,
                env,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void fullCommandLineIsParsed() {
        WriterConfig c = parse(
                Map.of(),
                "--bootstrap-servers",
                "k:9092",
                "--store-dir",
                tmp.toString(),
                "--topic",
                "users",
                "--topic",
                "items=item_names",
                "--kafka-property",
                "security.protocol=SSL",
                "--http-port",
                "0",
                "--value-field",
                "name.display",
                "--max-value-bytes",
                "2KiB");
        // --value-field is the field of every namespace that names none of its own.
        assertThat(c.topics())
                .containsExactly(
                        new TopicBinding("users", "users", Optional.of("name.display")),
                        new TopicBinding("items", "item_names", Optional.of("name.display")));
        assertThat(c.kafkaProperties()).containsEntry("security.protocol", "SSL");
        assertThat(c.httpHost()).isEqualTo("127.0.0.1");
        assertThat(c.httpPort()).isZero();
        assertThat(c.valueField()).contains("name.display");
        assertThat(c.maxValueBytes()).isEqualTo(2048);
    }

    /**
     * {@code --rebuild}: repeatable, from the command line, the environment and the config file like the other
     * options; a namespace this writer does not serve is a one-line error.
     */
    @Test
    void rebuildNamesNamespacesThisWriterServes() throws Exception {
        String[] base = {
            "--bootstrap-servers",
            "k:9092",
            "--store-dir",
            tmp.toString(),
            "--topic",
            "users",
            "--topic",
            "items=item_names"
        };
        assertThat(parse(Map.of(), base).rebuild()).isEmpty();
        String[] both = java.util.stream.Stream.concat(
                        java.util.Arrays.stream(base),
                        java.util.stream.Stream.of("--rebuild", "users", "--rebuild", "item_names"))
                .toArray(String[]::new);
        assertThat(parse(Map.of(), both).rebuild()).containsExactlyInAnyOrder("users", "item_names");
        assertThat(parse(Map.of("SHARED_LOOKUP_REBUILD", "users,item_names"), base)
                        .rebuild())
                .containsExactlyInAnyOrder("users", "item_names");
        Path file = Files.writeString(tmp.resolve("w.properties"), "rebuild=item_names\n");
        String[] withFile = java.util.stream.Stream.concat(
                        java.util.Arrays.stream(base), java.util.stream.Stream.of("--config", file.toString()))
                .toArray(String[]::new);
        assertThat(parse(Map.of(), withFile).rebuild()).containsExactly("item_names");

        String[] unknown = java.util.stream.Stream.concat(
                        java.util.Arrays.stream(base), java.util.stream.Stream.of("--rebuild", "items"))
                .toArray(String[]::new);
        Run r = run(Map.of(), unknown);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err())
                .isEqualTo("error: --rebuild items: this writer serves no namespace 'items' (it serves "
                        + "item_names, users): name one of those, or feed it with --topic TOPIC=items"
                        + System.lineSeparator());
    }

    @Test
    void defaults() {
        WriterConfig c =
                parse(Map.of(), "--bootstrap-servers", "k:9092", "--store-dir", tmp.toString(), "--topic", "t");
        assertThat(c.httpPort()).isEqualTo(7070);
        assertThat(c.httpHost()).isEqualTo("127.0.0.1");
        assertThat(c.maxValueBytes()).isEqualTo(1 << 20);
        assertThat(c.valueField()).isEmpty();
    }

    /** {@code --apply-threads}: 1 by default, auto one per core but one, from any source like the other options, 1 to 64. */
    @Test
    void applyThreads() throws Exception {
        String[] base = {"--bootstrap-servers", "k:1", "--store-dir", tmp.toString(), "--topic", "t"};
        assertThat(parse(Map.of(), base).applyThreads())
                .isEqualTo(WriterConfig.DEFAULT_APPLY_THREADS)
                .isEqualTo(1);
        String[] one = java.util.stream.Stream.concat(
                        java.util.Arrays.stream(base), java.util.stream.Stream.of("--apply-threads", "1"))
                .toArray(String[]::new);
        assertThat(parse(Map.of(), one).applyThreads()).isEqualTo(1);
        assertThat(parse(Map.of("SHARED_LOOKUP_APPLY_THREADS", "3"), base).applyThreads())
                .isEqualTo(3);
        Path file = Files.writeString(tmp.resolve("threads.properties"), "apply-threads=auto\n");
        String[] withFile = java.util.stream.Stream.concat(
                        java.util.Arrays.stream(base), java.util.stream.Stream.of("--config", file.toString()))
                .toArray(String[]::new);
        assertThat(parse(Map.of(), withFile).applyThreads())
                .isEqualTo(WriterConfig.AUTO_APPLY_THREADS)
                .isEqualTo(Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors() - 1)));
        assertThatThrownBy(() -> parse(Map.of("SHARED_LOOKUP_APPLY_THREADS", "0"), base))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid --apply-threads '0': use a whole number "
                        + "from 1 (every record on the ingest thread) to 64, or auto (one per core but one)");
    }

    @Test
    void precedenceIsCommandLineThenEnvironmentThenConfigFile() throws Exception {
        Path file = tmp.resolve("writer.properties");
        Files.writeString(
                file,
                "bootstrap-servers=file:1\nstore-dir=" + tmp + "\ntopic=a,b=bee\nhttp-port=1111\n"
                        + "max-value-bytes=10\n");
        Map<String, String> env = Map.of("SHARED_LOOKUP_HTTP_PORT", "2222", "SHARED_LOOKUP_BOOTSTRAP_SERVERS", "env:1");
        WriterConfig c = parse(env, "--config", file.toString(), "--bootstrap-servers", "cli:1");
        assertThat(c.bootstrapServers()).isEqualTo("cli:1");
        assertThat(c.httpPort()).isEqualTo(2222);
        assertThat(c.maxValueBytes()).isEqualTo(10);
        assertThat(c.topics()).extracting(TopicBinding::namespace).containsExactly("a", "bee");
        WriterConfig cliTopics =
                parse(Map.of("SHARED_LOOKUP_TOPIC", "envtopic"), "--config", file.toString(), "--topic", "clitopic");
        assertThat(cliTopics.topics()).extracting(TopicBinding::topic).containsExactly("clitopic");
        WriterConfig envTopics = parse(Map.of("SHARED_LOOKUP_TOPIC", "e1,e2=two"), "--config", file.toString());
        assertThat(envTopics.topics()).extracting(TopicBinding::namespace).containsExactly("e1", "two");
        WriterConfig fromEnvConfig = parse(Map.of("SHARED_LOOKUP_CONFIG", file.toString()));
        assertThat(fromEnvConfig.bootstrapServers()).isEqualTo("file:1");
    }

    @Test
    void kafkaConfigFileIsOverriddenByKafkaProperty() throws Exception {
        Path file = tmp.resolve("kafka.properties");
        Files.writeString(file, "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n");
        WriterConfig c = parse(
                Map.of(),
                "--bootstrap-servers",
                "k:1",
                "--store-dir",
                tmp.toString(),
                "--topic",
                "t",
                "--kafka-config",
                file.toString(),
                "--kafka-property",
                "sasl.mechanism=SCRAM-SHA-512");
        assertThat(c.kafkaProperties())
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512");
    }

    @Test
    void kafkaPropertiesFromTheEnvironmentSplitOnlyBeforeAKey() {
        WriterConfig c = parse(
                Map.of(
                        "SHARED_LOOKUP_KAFKA_PROPERTY",
                        "security.protocol=SSL,ssl.endpoint.identification.algorithm=,x.hosts=a:1,b:2"),
                "--bootstrap-servers",
                "k:1",
                "--store-dir",
                tmp.toString(),
                "--topic",
                "t");
        assertThat(c.kafkaProperties())
                .containsEntry("security.protocol", "SSL")
                .containsEntry("ssl.endpoint.identification.algorithm", "")
                .containsEntry("x.hosts", "a:1,b:2");
    }

    /**
     * A password may hold ",b=c": after a comma, only a dotted lower-case name starts another property. Text inside
     * double quotes (a JAAS entry's password="...") is never split, even before a dotted name: picocli keeps quoted
     * sections whole.
     */
    @Test
    void aKafkaPropertyValueKeepsACommaThatADottedNameDoesNotFollow() throws Exception {
        String jaas = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" "
                + "password=\"a,b=c,d.e=f\";";
        String list = "security.protocol=SASL_SSL,ssl.truststore.password=pa,ss=word,sasl.jaas.config=" + jaas
                + ",sasl.mechanism=PLAIN";
        List<Map.Entry<String, String>> expected = List.of(
                Map.entry("security.protocol", "SASL_SSL"),
                Map.entry("ssl.truststore.password", "pa,ss=word"),
                Map.entry("sasl.jaas.config", jaas),
                Map.entry("sasl.mechanism", "PLAIN"));
        String[] required = {"--bootstrap-servers", "k:1", "--store-dir", tmp.toString(), "--topic", "t"};
        assertThat(parse(Map.of("SHARED_LOOKUP_KAFKA_PROPERTY", list), required)
                        .kafkaProperties()
                        .entrySet())
                .as("from the environment")
                .containsExactlyInAnyOrderElementsOf(expected);
        Path file = Files.writeString(tmp.resolve("w.properties"), "kafka-property=" + list + "\n");
        assertThat(parse(
                                Map.of(),
                                "--config",
                                file.toString(),
                                "--bootstrap-servers",
                                "k:1",
                                "--store-dir",
                                tmp.toString(),
                                "--topic",
                                "t")
                        .kafkaProperties()
                        .entrySet())
                .as("from the --config file")
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(parse(
                                Map.of(),
                                "--bootstrap-servers",
                                "k:1",
                                "--store-dir",
                                tmp.toString(),
                                "--topic",
                                "t",
                                "--kafka-property",
                                list)
                        .kafkaProperties()
                        .entrySet())
                .as("from the command line")
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(parse(
                                Map.of(),
                                "--bootstrap-servers",
                                "k:1",
                                "--store-dir",
                                tmp.toString(),
                                "--topic",
                                "t",
                                "--kafka-property",
                                "ssl.truststore.password=pa,ss=word",
                                "--kafka-property",
                                "sasl.jaas.config=" + jaas)
                        .kafkaProperties())
                .as("one property per argument")
                .containsOnly(expected.get(1), expected.get(2));
    }

    /** Every consumer property Kafka defines starts a new property in a comma list: none is split off wrongly. */
    @Test
    void everyConsumerPropertyNameStartsANewEntryOfACommaList() {
        assertThat(org.apache.kafka.clients.consumer.ConsumerConfig.configNames())
                .hasSizeGreaterThan(100)
                .allSatisfy(name -> assertThat(("group.id=g," + name + "=v").split(WriterCommand.KAFKA_PROPERTY_SPLIT))
                        .as(name)
                        .containsExactly("group.id=g", name + "=v"));
    }

    @Test
    void helpListsEveryOption() {
        Run r = run(Map.of(), "--help");
        assertThat(r.exit()).isZero();
        for (String option : List.of(
                "--bootstrap-servers",
                "--store-dir",
                "--topic",
                "--kafka-property",
                "--kafka-config",
                "--http-host",
                "--http-port",
                "--value-field",
                "--max-value-bytes",
                "--reverse-index",
                "--file-mode",
                "--dir-mode",
                "--config",
                "SHARED_LOOKUP_")) {
            assertThat(r.out()).contains(option);
        }
        // The broker and the demo are the demo jar's: the production writer has neither.
        assertThat(r.out()).doesNotContain("--embedded-kafka").doesNotContain("--demo");
        // Every operator command is named in the help (snapshot was missing).
        String footer = r.out().replaceAll("\\s+", " ");
        for (String command : io.sharedlookup.writer.tools.StoreTools.COMMANDS) {
            assertThat(footer).as(command).contains(" " + command + " STORE");
        }
    }

    @Test
    void badInputExitsNonZeroWithOneClearLine() throws Exception {
        String store = tmp.toString();
        Path notADir = Files.writeString(tmp.resolve("plain-file"), "x");
        Map<String[], String> cases = new java.util.LinkedHashMap<>();
        cases.put(new String[] {"--bogus"}, "Unknown option");
        cases.put(new String[] {"--bootstrap-servers", "k:1", "--store-dir", store}, "No topic");
        cases.put(new String[] {"--store-dir", store, "--topic", "t"}, "--bootstrap-servers");
        cases.put(new String[] {"--bootstrap-servers", "k:1", "--topic", "t"}, "--store-dir");
        cases.put(
                new String[] {"--bootstrap-servers", "k:1", "--store-dir", store, "--topic", "t=bad/name"},
                "Invalid namespace");
        cases.put(
                new String[] {"--bootstrap-servers", "k:1", "--store-dir", store, "--topic", "t", "--http-port", "x"},
                "--http-port");
        cases.put(
                new String[] {
                    "--bootstrap-servers", "k:1", "--store-dir", store, "--topic", "t", "--max-value-bytes", "-1"
                },
                "--max-value-bytes");
        cases.put(
                new String[] {"--bootstrap-servers", "k:1", "--store-dir", store, "--demo", "--topic", "t"},
                "shared-lookup-demo.jar");
        cases.put(new String[] {"--embedded-kafka", "--store-dir", store, "--topic", "t"}, "shared-lookup-demo.jar");
        cases.put(
                new String[] {"--bootstrap-servers", "k:1", "--store-dir", store, "--topic", "a=x", "--topic", "b=x"},
                "two --topic");
        cases.put(
                new String[] {
                    "--bootstrap-servers",
                    "127.0.0.1:1",
                    "--store-dir",
                    notADir.resolve("sub").toString(),
                    "--topic",
                    "t"
                },
                "store directory");
        cases.put(
                new String[] {"--bootstrap-servers", "k:1", "--store-dir", store, "--topic", "t", "--file-mode", "0666"
                },
                "world-writable");
        cases.put(
                new String[] {"--bootstrap-servers", "k:1", "--store-dir", store, "--topic", "t", "--dir-mode", "rwz"},
                "use octal like 0640");
        cases.put(
                new String[] {"--bootstrap-servers", "k:1", "--store-dir", store, "--topic", "t", "--file-mode", "0440"
                },
                "--file-mode 0440: Store files must be readable and writable by their owner");
        cases.put(
                new String[] {"--bootstrap-servers", "k:1", "--store-dir", store, "--topic", "t", "--dir-mode", "0600"},
                "--dir-mode 0600: Store directories must be readable, writable and searchable by their owner");
        cases.put(
                new String[] {"--bootstrap-servers", "kafka", "--store-dir", store, "--topic", "t"},
                "Invalid --bootstrap-servers 'kafka': 'kafka' is not HOST:PORT");
        cases.put(
                new String[] {"--bootstrap-servers", "k:9092,k2", "--store-dir", store, "--topic", "t"},
                "'k2' is not HOST:PORT");
        cases.put(
                new String[] {"--bootstrap-servers", "k:99999", "--store-dir", store, "--topic", "t"},
                "'k:99999' is not HOST:PORT with a port from 1 to 65535");
        // Kafka refuses these only when the consumer is built, at start: still one line, exit 2.
        cases.put(
                new String[] {
                    "--bootstrap-servers",
                    "127.0.0.1:1",
                    "--store-dir",
                    store,
                    "--topic",
                    "t",
                    "--kafka-property",
                    "security.protocol=SASL_SSLX"
                },
                "Kafka consumer settings do not work: Invalid value SASL_SSLX for configuration security.protocol");
        cases.put(
                new String[] {
                    "--bootstrap-servers",
                    "127.0.0.1:1",
                    "--store-dir",
                    store,
                    "--topic",
                    "t",
                    "--kafka-property",
                    "security.protocol=SSL",
                    "--kafka-property",
                    "ssl.truststore.location=" + tmp.resolve("missing-truststore.jks"),
                    "--kafka-property",
                    "ssl.truststore.password=secret"
                },
                "(NoSuchFileException: " + tmp.resolve("missing-truststore.jks") + "): fix");
        // Kafka resolves the bootstrap hosts first; the other settings are checked at start all the same.
        cases.put(
                new String[] {
                    "--bootstrap-servers",
                    "kafka.invalid:9092",
                    "--store-dir",
                    store,
                    "--topic",
                    "t",
                    "--kafka-property",
                    "security.protocol=SSL",
                    "--kafka-property",
                    "ssl.truststore.location=" + tmp.resolve("missing-truststore.jks"),
                    "--kafka-property",
                    "ssl.truststore.password=secret"
                },
                "(NoSuchFileException: " + tmp.resolve("missing-truststore.jks") + "): fix");
        cases.put(
                new String[] {
                    "--bootstrap-servers",
                    "kafka.invalid:9092",
                    "--store-dir",
                    store,
                    "--topic",
                    "t",
                    "--kafka-property",
                    "security.protocol=SASL_SSLX"
                },
                "Kafka consumer settings do not work: Invalid value SASL_SSLX for configuration security.protocol");
        cases.forEach((args, expected) -> {
            Run r = run(Map.of(), args);
            assertThat(r.exit()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.err().strip())
                    .as(String.join(" ", args))
                    .containsIgnoringCase(expected)
                    .doesNotContain("\n")
                    .startsWith("error: ");
        });
    }

    @Test
    void typedOptionsReportTheirOwnOneLineMessageFromAnySource() {
        String store = tmp.toString();
        assertThatThrownBy(() -> parse(
                        Map.of(),
                        "--bootstrap-servers",
                        "k:1",
                        "--store-dir",
                        store,
                        "--topic",
                        "t",
                        "--http-port",
                        "70000"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid --http-port '70000': use a port number from 0 to 65535");
        assertThatThrownBy(() -> parse(
                        Map.of("SHARED_LOOKUP_MAX_VALUE_BYTES", "3GiB"),
                        "--bootstrap-servers",
                        "k:1",
                        "--store-dir",
                        store,
                        "--topic",
                        "t"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid --max-value-bytes '3GiB': use a positive size such as 1048576 or 1MiB, at most "
                        + "2147483647 (2GiB minus one byte, e.g. 2047MiB)");
        assertThatThrownBy(() -> parse(
                        Map.of("SHARED_LOOKUP_TOPIC", "ok,b@d"), "--bootstrap-servers", "k:1", "--store-dir", store))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Invalid topic 'b@d' in --topic b@d: ");
        assertThatThrownBy(() -> parse(
                        Map.of(),
                        "--bootstrap-servers",
                        "k:1",
                        "--store-dir",
                        store,
                        "--topic",
                        "t",
                        "--kafka-property",
                        "novalue"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Invalid --kafka-property 'novalue': use KEY=VALUE");
        assertThatThrownBy(() -> parse(
                        Map.of("SHARED_LOOKUP_INGEST_HOLD_LIMIT", "-1"),
                        "--bootstrap-servers",
                        "k:1",
                        "--store-dir",
                        store,
                        "--topic",
                        "t"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid --ingest-hold-limit '-1': use a whole number of seconds, at least 60 (a disk that "
                        + "stalls for seconds is no reason to restart), e.g. 1800, or 0 for never");
        assertThatThrownBy(() -> parse(
                        Map.of(),
                        "--bootstrap-servers",
                        "k:1",
                        "--store-dir",
                        store,
                        "--topic",
                        "t",
                        "--ingest-hold-limit",
                        "59"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Invalid --ingest-hold-limit '59': use a whole number of seconds, at least 60");
        assertThat(parse(
                                Map.of(),
                                "--bootstrap-servers",
                                "k:1",
                                "--store-dir",
                                store,
                                "--topic",
                                "t",
                                "--ingest-hold-limit",
                                "60")
                        .ingestHoldLimitSeconds())
                .isEqualTo(60);
        assertThat(parse(
                                Map.of(),
                                "--bootstrap-servers",
                                "k:1",
                                "--store-dir",
                                store,
                                "--topic",
                                "t",
                                "--ingest-hold-limit",
                                "0")
                        .ingestHoldLimitSeconds())
                .isZero();
        assertThatThrownBy(() -> parse(
                        Map.of(),
                        "--bootstrap-servers",
                        "k:1",
                        "--store-dir",
                        store,
                        "--topic",
                        "t",
                        "--stuck-after",
                        "0"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid --stuck-after '0': use a whole number of seconds, at least 1, e.g. 60");
        assertThatThrownBy(() -> parse(
                        Map.of(),
                        "--bootstrap-servers",
                        "k:1",
                        "--store-dir",
                        store,
                        "--topic",
                        "t",
                        "--kafka-property",
                        "isolation.level=read_uncommitted"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Consumer property isolation.level=read_uncommitted would let the store diverge from the "
                        + "topic; the writer sets isolation.level=read_committed itself: remove it (from "
                        + "--kafka-property or --kafka-config)");
        assertThatThrownBy(() -> parse(
                        Map.of(),
                        "--bootstrap-servers",
                        "k:1",
                        "--store-dir",
                        store,
                        "--topic",
                        "t",
                        "--kafka-property",
                        "auto.offset.reset=earliest"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("auto.offset.reset=none itself");
        assertThat(parse(
                                Map.of(),
                                "--bootstrap-servers",
                                "k:1",
                                "--store-dir",
                                store,
                                "--topic",
                                "t",
                                "--kafka-property",
                                "enable.auto.commit=false")
                        .kafkaProperties())
                .as("the writer's own value is accepted")
                .containsEntry("enable.auto.commit", "false");
        WriterConfig blanks =
                parse(Map.of("SHARED_LOOKUP_TOPIC", "a,,b"), "--bootstrap-servers", "k:1", "--store-dir", store);
        assertThat(blanks.topics()).extracting(TopicBinding::topic).containsExactly("a", "b");
    }

    @Test
    void bootstrapServersTakeEveryFormKafkaAccepts() {
        for (String servers : List.of(
                "k:9092", "k1:9092, k2:9093", "[::1]:9092", "SASL_SSL://k.example.com:9093", "10.0.0.1:9092,")) {
            assertThat(parse(Map.of(), "--bootstrap-servers", servers, "--store-dir", tmp.toString(), "--topic", "t")
                            .bootstrapServers())
                    .isEqualTo(servers);
        }
    }

    /** A broker whose TLS handshake fails (here: it does not speak TLS) is refused at start in one line. */
    @Test
    void aConnectionTheBrokerDoesNotAcceptIsOneLineAtStart() throws Exception {
        try (java.net.ServerSocket plaintext =
                new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Thread answering = new Thread(
                    () -> {
                        while (true) {
                            try (java.net.Socket s = plaintext.accept()) {
                                s.getOutputStream()
                                        .write("HTTP/1.1 400 Bad Request\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                            } catch (java.io.IOException closed) {
                                return;
                            }
                        }
                    },
                    "plaintext-broker");
            answering.setDaemon(true);
            answering.start();
            Run r = run(
                    Map.of(),
                    "--bootstrap-servers",
                    "127.0.0.1:" + plaintext.getLocalPort(),
                    "--store-dir",
                    tmp.toString(),
                    "--topic",
                    "t",
                    "--kafka-property",
                    "security.protocol=SSL");
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err().strip())
                    .doesNotContain("\n")
                    .startsWith("error: Kafka at 127.0.0.1:")
                    .contains("did not accept the writer's connection: SSL handshake failed (SSLException: ");
        }
    }

    /**
     * A bootstrap host that does not resolve (yet: Kubernetes publishes a new service's DNS name a little later) is
     * retried like a broker that does not answer: the writer starts, serves, and says why it is not ready. The .invalid
     * top-level domain never resolves.
     */
    @Test
    void aBootstrapHostThatDoesNotResolveIsRetriedWhileTheWriterServes() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        WriterMain.Launch launch = WriterMain.launch(
                new String[] {
                    "--bootstrap-servers",
                    "kafka.invalid:9092",
                    "--store-dir",
                    tmp.toString(),
                    "--topic",
                    "t",
                    "--http-port",
                    "0"
                },
                Map.of(),
                new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(launch.app()).as(err.toString(StandardCharsets.UTF_8)).isNotNull();
        try (WriterApp app = launch.app()) {
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                HttpResponse<String> ready = Http.get(app.httpPort(), "/ready");
                assertThat(ready.statusCode()).isEqualTo(503);
                assertThat(ready.body())
                        .contains("Kafka bootstrap host(s) kafka.invalid:9092 do not resolve (yet); " + "retrying");
            });
            assertThat(Http.get(app.httpPort(), "/health").statusCode()).isEqualTo(200);
        }
    }

    /** The largest size accepted is the one the message names; a product that overflows a long is not a size. */
    @Test
    void maxValueBytesAcceptsUpToTheLimitItStatesAndRejectsOverflow() {
        String store = tmp.toString();
        assertThat(parse(
                                Map.of(),
                                "--bootstrap-servers",
                                "k:1",
                                "--store-dir",
                                store,
                                "--topic",
                                "t",
                                "--max-value-bytes",
                                "2147483647")
                        .maxValueBytes())
                .isEqualTo(Integer.MAX_VALUE);
        assertThat(parse(
                                Map.of(),
                                "--bootstrap-servers",
                                "k:1",
                                "--store-dir",
                                store,
                                "--topic",
                                "t",
                                "--max-value-bytes",
                                "2047MiB")
                        .maxValueBytes())
                .isEqualTo(2047 << 20);
        for (String tooLarge : List.of("2GiB", "2147483648", "17179869185GiB", "9223372036854775807KiB")) {
            assertThatThrownBy(() -> parse(
                            Map.of(),
                            "--bootstrap-servers",
                            "k:1",
                            "--store-dir",
                            store,
                            "--topic",
                            "t",
                            "--max-value-bytes",
                            tooLarge))
                    .as(tooLarge)
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("Invalid --max-value-bytes '" + tooLarge + "': use a positive size such as 1048576 or "
                            + "1MiB, at most 2147483647 (2GiB minus one byte, e.g. 2047MiB)");
        }
    }

    @Test
    void storeModesDefaultToGroupReadableAndAreConfigurable() {
        WriterConfig defaults =
                parse(Map.of(), "--bootstrap-servers", "k:1", "--store-dir", tmp.toString(), "--topic", "t");
        assertThat(defaults.permissions()).isEqualTo(io.sharedlookup.writer.store.StorePermissions.DEFAULT);
        WriterConfig shared = parse(
                Map.of("SHARED_LOOKUP_FILE_MODE", "0660"),
                "--bootstrap-servers",
                "k:1",
                "--store-dir",
                tmp.toString(),
                "--topic",
                "t",
                "--dir-mode",
                "rwxrwx---");
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                        shared.permissions().file()))
                .isEqualTo("rw-rw----");
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                        shared.permissions().directory()))
                .isEqualTo("rwxrwx---");
    }

    @Test
    void unknownConfigFileKeyIsAnError() throws Exception {
        Path file = tmp.resolve("w.properties");
        Files.writeString(file, "bootstrap-server=k:1\n");
        assertThatThrownBy(() ->
                        parse(Map.of(), "--config", file.toString(), "--store-dir", tmp.toString(), "--topic", "t"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("bootstrap-server");
    }

    /**
     * A seed directory that is gone is no reason to refuse a start: the option often stays in a unit file or ConfigMap
     * after the first start, and a store that has its namespaces ignores it (a namespace without it is built from its
     * topic, with a WARN). One that names a file is a mistake.
     */
    @Test
    void aSeedDirectoryThatIsGoneStartsAndOneThatIsAFileDoesNot() throws Exception {
        Path gone = tmp.resolve("snapshot-removed-since");
        WriterConfig c = parse(
                Map.of(),
                "--bootstrap-servers",
                "k:1",
                "--store-dir",
                tmp.toString(),
                "--topic",
                "t",
                "--seed",
                gone.toString());
        assertThat(c.seed()).contains(gone.toAbsolutePath().normalize());
        Path file = Files.writeString(tmp.resolve("not-a-snapshot"), "x");
        assertThatThrownBy(() -> parse(
                        Map.of(),
                        "--bootstrap-servers",
                        "k:1",
                        "--store-dir",
                        tmp.toString(),
                        "--topic",
                        "t",
                        "--seed",
                        file.toString()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("is not a directory");
    }
}
