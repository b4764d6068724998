package io.kubewarden.networkenforcer.writer;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kubewarden.networkenforcer.common.policy.NativePolicySnapshot;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.writer.events.EnqueueKeys;
import io.kubewarden.networkenforcer.writer.policies.NativePolicyPublisher;
import io.kubewarden.networkenforcer.writer.policies.PolicyTopicReader;
import io.kubewarden.networkenforcer.writer.reconcile.Controller;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every NetworkPolicy of the cluster to {@code native-policies} (monitor mode evaluates the union):
 * an informer on all of them, a controller of its own ({@link NativePolicyPublisher}), and the keys
 * the topic still holds for deleted ones queued once the informer has listed. Not needed to run: on
 * the Istio backend the chart grants no NetworkPolicy access.
 */
final class NativePolicyFeed {
  private static final Logger LOG = LoggerFactory.getLogger(NativePolicyFeed.class);

  private final SharedIndexInformer<NetworkPolicy> all;
  private final Controller<ObjectKey> controller;

  private NativePolicyFeed(
      SharedIndexInformer<NetworkPolicy> all, Controller<ObjectKey> controller) {
    this.all = all;
    this.controller = controller;
  }

  /** Builds and starts the informer and the controller ({@code retry}: base and max back-off). */
  static NativePolicyFeed start(
      KubernetesClient client,
      Producer<String, byte[]> producer,
      WriterConfig config,
      Duration syncTimeout,
      Duration retryBase,
      Duration retryMax,
      MeterRegistry meters) {
    Topic<String, NativePolicySnapshot> topic = config.kafka().topics().nativePolicies();
    SharedIndexInformer<NetworkPolicy> all =
        client.network().v1().networkPolicies().inAnyNamespace().runnableInformer(0);
    Controller<ObjectKey> controller =
        new Controller<>(
            "native-policies",
            new NativePolicyPublisher(
                producer,
                topic,
                key -> Optional.ofNullable(all.getStore().getByKey(key.toString())),
                meters),
            retryBase,
            retryMax,
            meters);
    all.addEventHandler(EnqueueKeys.<NetworkPolicy>to(controller::enqueue));
    all.exceptionHandler(
        (started, t) -> {
          LOG.warn("watch of NetworkPolicies for monitor mode failed: {}", t.getMessage());
          return !(t instanceof KubernetesClientException e
              && (e.getCode() == 403 || e.getCode() == 404));
        });
    controller.start(1, config.identity());
    all.start()
        .thenRun(
            () -> {
              try {
                NativePolicyPublisher.stale(
                        all.getStore().list(),
                        PolicyTopicReader.liveKeys(
                            config.kafka().clientConfig(), topic.name(), syncTimeout))
                    .forEach(controller::enqueue);
              } catch (Exception e) {
                LOG.warn("cannot resync {}: {}", topic.name(), e.toString());
              }
            });
    return new NativePolicyFeed(all, controller);
  }

  /** Closed with the session's other controllers. */
  Controller<ObjectKey> controller() {
    return controller;
  }

  /** Stopped with the session's other informers. */
  SharedIndexInformer<NetworkPolicy> informer() {
    return all;
  }
}
