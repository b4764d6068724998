package io.kubewarden.networkenforcer.processor.app;

import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The same assertions against a broker in a container, driven by Testcontainers' {@code
 * KafkaContainer} as users' CI does. Never skipped: it fails when no Docker engine answers or the
 * local Kafka image is missing (see {@link LocalKafkaImage}). Ryuk cannot run here (its image is
 * not reachable), so the build turns it off and Testcontainers removes the container when the class
 * ends or the JVM exits.
 */
@Testcontainers
class KafkaContainerProcessorIntegrationTest extends AbstractProcessorIntegrationTest {

  @Container
  private static final KafkaContainer KAFKA = new KafkaContainer(LocalKafkaImage.require());

  @Override
  protected String bootstrapServers() {
    return KAFKA.getBootstrapServers();
  }
}
