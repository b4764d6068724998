package io.kubewarden.networkenforcer.processor.app;

import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The same assertions against a real {@code apache/kafka} broker in a container: what users' CI
 * runs. Skipped (not failed) where no Docker engine runs, as on the build machine.
 */
@Testcontainers(disabledWithoutDocker = true)
class KafkaContainerProcessorIntegrationTest extends AbstractProcessorIntegrationTest {

  @Container
  private static final KafkaContainer KAFKA = new KafkaContainer("apache/kafka:4.1.1");

  @Override
  protected String bootstrapServers() {
    return KAFKA.getBootstrapServers();
  }
}
