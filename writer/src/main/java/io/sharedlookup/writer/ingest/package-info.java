/**
 * From Kafka to a namespace: the ingest thread ({@link io.sharedlookup.writer.ingest.Ingestor}) owns the one consumer
 * of every configured topic and every namespace. It discovers partitions and offsets at start and lets each
 * namespace resume or rebuild, polls, has each batch decoded and applied in order
 * ({@link io.sharedlookup.writer.ingest.BatchApplier}, {@link io.sharedlookup.writer.ingest.RecordDecoder}), tracks
 * the next offset not yet applied per partition and whether each topic caught up
 * ({@link io.sharedlookup.writer.ingest.PartitionOffsets}), follows partitions added to a topic, pauses topics whose
 * namespace cannot take records ({@link io.sharedlookup.writer.ingest.TopicPauses}), and recovers from the broker:
 * backoff on errors and timeouts, a rebuild when positions went out of range. Between polls it runs the periodic jobs
 * that are due ({@link io.sharedlookup.writer.ingest.PeriodicJobs}): checkpoints, health checks, new partitions.
 *
 * <p>The consumer is injected (any {@code Consumer<byte[], byte[]>} with {@link
 * io.sharedlookup.writer.ingest.ConsumerSettings}), so the loop is unit-tested against Kafka's {@code MockConsumer}.
 * What happens to a record inside a namespace is {@code io.sharedlookup.writer.namespace}'s business.
 */
package io.sharedlookup.writer.ingest;
