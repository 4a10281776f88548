import io.sharedlookup.demo.kafka.EmbeddedKafka;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * DruidClusterIT's Kafka side, run as a child JVM in source-file mode on the demo jar's class path
 * ({@code java -cp shared-lookup-demo.jar KafkaFixture.java <dataDir> <topic>[,<topic>...] <partitions>}): the
 * {@link EmbeddedKafka} KRaft broker the demo and the writer's tests use, compacted topics, and a producer driven
 * over stdin. Kafka's jars never meet Druid's on a class path this way.
 *
 * <p>Protocol, one UTF-8 line each way; keys and values are Base64 so that any text crosses the pipe intact:
 * <pre>
 * out: FIXTURE READY &lt;bootstrap servers&gt;
 * in:  SEND &lt;request id&gt; &lt;base64 key&gt; &lt;base64 value&gt; [&lt;topic&gt;]   (value "-": a tombstone;
 *      no topic: the first one)
 * out: FIXTURE ACK &lt;request id&gt; &lt;partition&gt;@&lt;offset&gt;       (after the broker acknowledged it)
 * out: FIXTURE FAILED &lt;request id&gt; &lt;error&gt;
 * </pre>
 * End of stdin (the test closes it, or dies) stops the producer and the broker, and ends the process.
 */
public final class KafkaFixture {
    public static void main(String[] args) throws Exception {
        Path dataDir = Path.of(args[0]);
        List<String> topics = List.of(args[1].split(","));
        int partitions = Integer.parseInt(args[2]);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

        try (EmbeddedKafka kafka = EmbeddedKafka.start(dataDir)) {
            Properties common = new Properties();
            common.put("bootstrap.servers", kafka.bootstrapServers());
            try (Admin admin = Admin.create(common)) {
                admin.createTopics(topics.stream().map(topic -> new NewTopic(topic, Optional.of(partitions),
                        Optional.<Short>empty()).configs(Map.of("cleanup.policy", "compact"))).toList())
                        .all().get(60, TimeUnit.SECONDS);
            }
            Properties p = new Properties();
            p.putAll(common);
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
                out.println("FIXTURE READY " + kafka.bootstrapServers());
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                for (String line; (line = in.readLine()) != null; ) {
                    String[] f = line.trim().split(" ");
                    if (f.length < 4 || f.length > 5 || !f[0].equals("SEND")) {
                        out.println("FIXTURE FAILED ? unknown command: " + line);
                        continue;
                    }
                    try {
                        byte[] key = Base64.getDecoder().decode(f[2]);
                        byte[] value = f[3].equals("-") ? null : Base64.getDecoder().decode(f[3]);
                        String topic = f.length == 5 ? f[4] : topics.get(0);
                        RecordMetadata m = producer.send(new ProducerRecord<>(topic, key, value))
                                .get(30, TimeUnit.SECONDS);
                        out.println("FIXTURE ACK " + f[1] + " " + m.partition() + "@" + m.offset());
                    } catch (Exception e) {
                        out.println("FIXTURE FAILED " + f[1] + " " + e);
                    }
                }
            }
        }
        out.println("FIXTURE STOPPED");
    }
}
