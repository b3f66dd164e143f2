// A tiny Java Kafka client for interoperability tests (the reference implementation of the
// compression codecs). Run it with Java's single-file source launcher on the broker classpath:
//   java -cp 'kafka/target/libs/*' kafka/tools/JavaClient.java produce <brokers> <topic>[,<topic>...] <none|gzip|snappy|lz4|zstd>[,...] <count> <valuePrefix>
//   java -cp 'kafka/target/libs/*' kafka/tools/JavaClient.java consume <brokers> <topic>[,<topic>...] <count>
// `produce` writes <count> records to each topic (key k<i>, value <valuePrefix><i> padded to ~2 KiB so
// compression has work to do), with the i-th compression type for the i-th topic (one producer per
// topic); `consume` reads all topics in one group and prints each record as <topic><TAB><value>
// (UTF-8) on its own line, exiting non-zero if fewer than <count> records in total arrive in 30 s.
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class JavaClient {
  public static void main(String[] args) throws Exception {
    String mode = args[0], brokers = args[1], topic = args[2];
    if (mode.equals("produce")) {
      String[] topics = topic.split(","), compressions = args[3].split(",");
      int count = Integer.parseInt(args[4]);
      String pad = "span-payload ".repeat(160);
      for (int t = 0; t < topics.length; t++) {
        Properties p = new Properties();
        p.put("bootstrap.servers", brokers);
        p.put("compression.type", compressions[Math.min(t, compressions.length - 1)]);
        p.put("linger.ms", "50");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
          for (int i = 0; i < count; i++) producer.send(new ProducerRecord<>(topics[t], "k" + i, args[5] + i + " " + pad));
          producer.flush();
        }
      }
    } else if (mode.equals("consume")) {
      Properties p = new Properties();
      p.put("bootstrap.servers", brokers);
      p.put("group.id", "java-client-" + System.nanoTime());
      p.put("auto.offset.reset", "earliest");
      p.put("key.deserializer", StringDeserializer.class.getName());
      p.put("value.deserializer", StringDeserializer.class.getName());
      int count = Integer.parseInt(args[3]), seen = 0;
      long deadline = System.currentTimeMillis() + 30_000;
      try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
        consumer.subscribe(List.of(topic.split(",")));
        while (seen < count && System.currentTimeMillis() < deadline) {
          for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
            System.out.println(r.topic() + "\t" + r.value());
            seen++;
          }
        }
      }
      if (seen < count) {
        System.err.println("only " + seen + " of " + count + " records arrived");
        System.exit(1);
      }
    } else {
      System.err.println("unknown mode " + mode);
      System.exit(2);
    }
  }
}
