package io.kubewarden.networkenforcer.cli.services;

import io.kubewarden.networkenforcer.common.config.ConfigException;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the processor topology under Kafka Streams with its metrics (consumer lag included) on the
 * service registry. A thin adapter in the CLI: the stream-processor module's own application class
 * had not landed when the CLI was written; this uses only its committed topology and config.
 */
public final class ProcessorRuntime implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessorRuntime.class);

  private final ProcessorConfig config;
  private final MeterRegistry registry;
  private final AtomicReference<KafkaStreams.State> state = new AtomicReference<>(KafkaStreams.State.CREATED);
  private KafkaStreams streams;
  private KafkaStreamsMetrics metrics;

  public ProcessorRuntime(ProcessorConfig config, MeterRegistry registry) {
    this.config = config;
    this.registry = registry;
  }

  /** Creates the loop topic, checks co-partitioning and starts processing. */
  public synchronized ProcessorRuntime start(boolean createTopics) {
    try (Admin admin = Admin.create(config.kafka().clientConfig())) {
      if (createTopics) {
        var loop = NetworkEnforcerTopology.reattributionTopic(config);
        if (!admin.listTopics().names().get(60, TimeUnit.SECONDS).contains(loop.name())) {
          admin.createTopics(List.of(loop.newTopic(config.kafka().partitions(), config.kafka().replicationFactor())))
              .all().get(60, TimeUnit.SECONDS);
        }
      }
      checkCoPartitioning(admin);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while preparing topics", e);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("cannot prepare the processor's topics on " + config.kafka().bootstrapServers()
          + ": " + e.getMessage(), e);
    }
    streams = new KafkaStreams(NetworkEnforcerTopology.build(config, registry), config.streamsProperties());
    streams.setStateListener((now, before) -> {
      state.set(now);
      LOG.info("stream processor {} -> {}", before, now);
    });
    streams.setUncaughtExceptionHandler(e -> {
      LOG.error("stream processor failed, shutting down: {}", e.toString(), e);
      return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });
    metrics = new KafkaStreamsMetrics(streams);
    metrics.bindTo(registry);
    streams.start();
    return this;
  }

  private void checkCoPartitioning(Admin admin) throws InterruptedException, java.util.concurrent.TimeoutException {
    var topics = config.topics();
    List<String> names = List.of(topics.policies().name(), topics.control().name(), config.reattributionTopic());
    Map<String, TopicDescription> found = null;
    // Topics created a moment ago may not be in the metadata yet: ask again for a while.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (found == null) {
      try {
        found = admin.describeTopics(names).allTopicNames().get(60, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)
            || System.nanoTime() > deadline) {
          throw new ConfigException("the topics " + names + " must exist (" + e.getCause().getMessage()
              + "); create them with " + config.kafka().partitions() + " partitions each, or set "
              + "--kafka-create-topics=true");
        }
        Thread.sleep(200);
      }
    }
    for (String name : names) {
      int count = found.get(name).partitions().size();
      if (count != config.kafka().partitions()) {
        throw new ConfigException("topic " + name + " has " + count + " partitions but --kafka-partitions is "
            + config.kafka().partitions() + "; policies, control, " + config.reattributionTopic() + " and the "
            + "repartition topic must be co-partitioned: set --kafka-partitions to " + count
            + " or grow the topics");
      }
    }
  }

  public boolean isReady() {
    return state.get() == KafkaStreams.State.RUNNING;
  }

  public boolean isAlive() {
    KafkaStreams.State s = state.get();
    return s != KafkaStreams.State.ERROR && s != KafkaStreams.State.PENDING_ERROR
        && s != KafkaStreams.State.NOT_RUNNING;
  }

  @Override
  public synchronized void close() {
    if (metrics != null) {
      metrics.close();
    }
    if (streams != null) {
      streams.close(Duration.ofSeconds(30));
      streams = null;
    }
  }
}
