package io.kubewarden.networkenforcer.processor.app;

import com.github.dockerjava.api.exception.NotFoundException;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.utility.DockerImageName;

/**
 * The Kafka image the container tests run: no registry is reachable from the build machines, so
 * {@code hack/tools/docker.sh} builds one from Kafka's jars that keeps the {@code apache/kafka}
 * image's contract, tagged with the Kafka version of the build; the pom passes its name in {@code
 * ne.test.kafka.image}, and {@code -Dne.test.kafka.image=...} picks another (e.g. {@code
 * apache/kafka:4.4.0} where Docker Hub answers).
 */
final class LocalKafkaImage {

  private LocalKafkaImage() {}

  /**
   * The image, declared a substitute for {@code apache/kafka}. Fails with what to run when no
   * Docker engine answers or the engine lacks the image (pulling it could only time out here).
   */
  static DockerImageName require() {
    String name = System.getProperty("ne.test.kafka.image");
    if (name == null || name.isBlank()) {
      throw new IllegalStateException(
          "no Kafka image named: set -Dne.test.kafka.image (the stream-processor pom "
              + "sets it to the image hack/tools/docker.sh builds)");
    }
    if (!DockerClientFactory.instance().isDockerAvailable()) {
      throw new IllegalStateException(
          "no Docker engine answers: run hack/tools/docker.sh (./hack/test.sh does) "
              + "to install and start one");
    }
    try {
      DockerClientFactory.instance().client().inspectImageCmd(name).exec();
    } catch (NotFoundException e) {
      throw new IllegalStateException(
          "the Docker engine has no image "
              + name
              + ": hack/tools/docker.sh builds it (./hack/test.sh runs it)",
          e);
    }
    return DockerImageName.parse(name).asCompatibleSubstituteFor("apache/kafka");
  }
}
