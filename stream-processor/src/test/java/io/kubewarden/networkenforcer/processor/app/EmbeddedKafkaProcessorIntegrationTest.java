package io.kubewarden.networkenforcer.processor.app;

import io.kubewarden.networkenforcer.embedded.EmbeddedKafkaBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The integration assertions on the in-JVM KRaft broker (the one standalone mode runs). */
class EmbeddedKafkaProcessorIntegrationTest extends AbstractProcessorIntegrationTest {
  private static EmbeddedKafkaBroker broker;

  @BeforeAll
  static void startBroker() {
    broker = EmbeddedKafkaBroker.startDefault();
  }

  @AfterAll
  static void stopBroker() {
    broker.close();
  }

  @Override
  protected String bootstrapServers() {
    return broker.bootstrapServers();
  }
}
