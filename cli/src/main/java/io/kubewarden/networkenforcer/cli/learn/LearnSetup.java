package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.common.config.KafkaSettings;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.policy.Backend;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import io.kubewarden.networkenforcer.processor.config.LearningSettings;
import io.kubewarden.networkenforcer.processor.config.ProcessorConfig;
import io.kubewarden.networkenforcer.processor.config.ProposalEmission;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.kafka.streams.StreamsConfig;

/** The processor settings {@code learn} runs the topology with, whatever runs it. */
final class LearnSetup {
  static final String APPLICATION_ID = "network-enforcer-learn";

  /** Short, so evidence reaches the proposals topic soon after the last flow. */
  static final Duration EVIDENCE_FLUSH = Duration.ofMillis(200);

  private static final Duration COMMIT_INTERVAL = Duration.ofMillis(100);

  private LearnSetup() {}

  /** The provider whose records a capture format holds. */
  static Provider providerOf(CaptureFormat format) {
    return switch (format) {
      case HUBBLE -> Provider.cilium;
      case GOLDMANE -> Provider.calico;
      case ZTUNNEL -> Provider.istio;
    };
  }

  /** Checks the processor settings (a backend that does not fit the provider fails here). */
  static ProcessorConfig processorConfig(
      KafkaSettings kafka,
      CaptureFormat format,
      Backend backend,
      Path stateDir,
      boolean inMemoryStores) {
    return processorConfig(
        kafka, format, backend, stateDir, inMemoryStores, LearningSettings.DEFAULTS);
  }

  static ProcessorConfig processorConfig(
      KafkaSettings kafka,
      CaptureFormat format,
      Backend backend,
      Path stateDir,
      boolean inMemoryStores,
      LearningSettings learning) {
    return ProcessorConfig.builder(kafka)
        .applicationId(APPLICATION_ID)
        // One instance, no failover: at-least-once gives the same result with less overhead.
        .processingGuarantee(StreamsConfig.AT_LEAST_ONCE)
        .evidenceFlushInterval(EVIDENCE_FLUSH)
        .commitInterval(COMMIT_INTERVAL)
        .stateDir(stateDir)
        .provider(providerOf(format))
        .backend(backend)
        .inMemoryStores(inMemoryStores)
        .learning(learning)
        // Every observation alone (the broker pipeline's setting); the in-process run combines
        // them.
        .combineInterval(Duration.ZERO)
        // Only the last proposal of each target is written: render each changed target once per
        // flush.
        .proposalEmission(ProposalEmission.AT_FLUSH)
        // Nothing is restored: the stores' state ends with the run.
        .storeChangelogs(false)
        .build()
        .validate();
  }

  /**
   * Fails before anything starts when the backend does not fit the capture's provider or the
   * learning settings (Cilium entities need the cilium backend).
   */
  static void checkBackend(CaptureFormat format, Backend backend, LearningSettings learning) {
    processorConfig(
        KafkaSettings.of("127.0.0.1:9092"), format, backend, Path.of("unused"), true, learning);
  }
}
