package io.kubewarden.networkenforcer.pipeline;

import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/** The topics a processor of that configuration reads and writes, made before it starts. */
final class ProcessorTopics {
  private ProcessorTopics() {}

  /** Every topic of the configuration and the processor's reattribution topic, replication 1. */
  static void create(Admin admin, ProcessorConfig config, int partitions) throws Exception {
    create(admin, config, partitions, (short) 1);
  }

  /** The same with that replication factor (and the product's min.insync.replicas for it). */
  static void create(Admin admin, ProcessorConfig config, int partitions, short replication)
      throws Exception {
    List<NewTopic> topics = new ArrayList<>();
    config.topics().all().forEach(t -> topics.add(t.newTopic(partitions, replication)));
    topics.add(
        NetworkEnforcerTopology.reattributionTopic(config).newTopic(partitions, replication));
    admin.createTopics(topics).all().get();
  }
}
