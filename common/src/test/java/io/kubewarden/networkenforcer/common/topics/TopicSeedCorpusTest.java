package io.kubewarden.networkenforcer.common.topics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The seed records of the topic fuzz targets decode: a seed the serde refuses would let the fuzzer
 * start from nothing but the refusal path, and its replay would pass without reading a record.
 */
class TopicSeedCorpusTest {
  private static final Topics TOPICS = Topics.withDefaultPrefix();

  static Stream<Arguments> seeds() {
    return Stream.of(
        Arguments.of(TOPICS.control(), "ControlTopicFuzzTestInputs/controlCommands"),
        Arguments.of(
            TOPICS.nativePolicies(), "NativePoliciesTopicFuzzTestInputs/nativePolicySnapshots"),
        Arguments.of(TOPICS.violations(), "ViolationsTopicFuzzTestInputs/violationObservations"),
        Arguments.of(TOPICS.proposals(), "ProposalsTopicFuzzTestInputs/proposalSnapshots"),
        Arguments.of(TOPICS.dataPlaneLoss(), "DataPlaneLossTopicFuzzTestInputs/lossWindows"),
        Arguments.of(TOPICS.policies(), "PoliciesTopicFuzzTestInputs/policySnapshots"));
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void everySeedIsARecordOfItsTopic(Topic<String, ?> topic, String dir)
      throws IOException, URISyntaxException {
    Path seeds = Path.of(Objects.requireNonNull(getClass().getResource(dir)).toURI());
    List<Path> files;
    try (Stream<Path> list = Files.list(seeds)) {
      files = list.filter(f -> !f.getFileName().toString().startsWith("crash-")).sorted().toList();
    }
    assertThat(files).isNotEmpty();
    for (Path f : files) {
      assertThat(topic.valueSerde().deserializer().deserialize(topic.name(), Files.readAllBytes(f)))
          .as(f.getFileName().toString())
          .isNotNull();
    }
  }
}
