package io.kubewarden.networkenforcer.processor.decoding;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpec;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicySpecBuilder;
import io.kubewarden.networkenforcer.common.control.ControlCommand;
import io.kubewarden.networkenforcer.common.crd.PolicySnapshot;
import io.kubewarden.networkenforcer.common.crd.PortEvidence;
import io.kubewarden.networkenforcer.common.crd.RuleEvidence;
import io.kubewarden.networkenforcer.common.flow.FlowEndpoint;
import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.policy.Mode;
import io.kubewarden.networkenforcer.common.policy.NativePolicySnapshot;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.DeadLetterHeaders;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.processor.fixtures.BasicFixture;
import io.kubewarden.networkenforcer.processor.fixtures.Policies;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import io.kubewarden.networkenforcer.processor.topology.NetworkEnforcerTopology;
import io.kubewarden.networkenforcer.testing.JsonMutator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * Seeded fuzzing of the processor's topology (the one the application builds, in a
 * TopologyTestDriver) with sequences of records over every topic it reads: flows (binary and JSON),
 * policies, control, native-policies and its re-attribution loop. Valid records, records with one
 * field removed or set out of range (ports, protocols, timestamps, counts, empty names), cut or
 * flipped bytes, tombstones, missing, empty and foreign keys, and record timestamps at the edges of
 * time, interleaved.
 *
 * <p>The property, after every record: nothing escapes the topology; a record is dead-lettered at
 * most once, with a reason that names its topic and, for a JSON field the fuzzer touched, that
 * field; a valid record is never dead-lettered. After the sequence: a valid flow still becomes a
 * proposal, and every count the processor wrote is within what was piped.
 *
 * <p>Reproduce a failure with the seed it prints: {@code -Dfuzz.seed=S}; more sequences with {@code
 * -Dfuzz.sequences=N -Dfuzz.records=M}.
 */
class RecordSequenceFuzzingTest {
  private static final Topics TOPICS = Topics.withDefaultPrefix();
  private static final Instant START = ProcessorTestDriver.START;
  private static final String[] NAMESPACES = {"demo", "shop", "kube-system"};
  private static final String[] DEPLOYMENTS = {"api", "web", "db", "cache"};

  @Test
  void sequencesOfGoodAndBadRecordsKeepTheProcessorWorking() {
    long seed = Long.getLong("fuzz.seed", 20_260_803L);
    int sequences = Integer.getInteger("fuzz.sequences", 6);
    int records = Integer.getInteger("fuzz.records", 250);
    for (int s = 0; s < sequences; s++) {
      long sequenceSeed = seed + s;
      // Alternate the two ways flows are read: through the combiner (the service) and one by one
      // (learn).
      Duration combine = s % 2 == 0 ? ProcessorTestDriver.COMBINE_INTERVAL : Duration.ZERO;
      try (var driver = ProcessorTestDriver.kubernetesInMemory(combine)) {
        new Sequence(driver, new Random(sequenceSeed), sequenceSeed).run(records);
      }
    }
    System.out.printf(
        "record sequences fuzzed: %d of %d records, seeds %d..%d%n",
        sequences, records, seed, seed + sequences - 1);
  }

  /** One sequence on one driver: the records, the log of what was piped, the checks. */
  private static final class Sequence {
    private final ProcessorTestDriver driver;
    private final Random random;
    private final long seed;
    private final Map<String, TestInputTopic<byte[], byte[]>> inputs;
    private final Map<String, String> topicNames;
    private final List<String> log = new ArrayList<>();
    private long flowRecordsPiped;
    private long flowCountPiped;
    private int deadLettered;

    Sequence(ProcessorTestDriver driver, Random random, long seed) {
      this.driver = driver;
      this.random = random;
      this.seed = seed;
      String reattribution = NetworkEnforcerTopology.reattributionTopic(driver.config()).name();
      this.topicNames =
          Map.of(
              "flows",
              TOPICS.flows().name(),
              "policies",
              TOPICS.policies().name(),
              "control",
              TOPICS.control().name(),
              "native-policies",
              TOPICS.nativePolicies().name(),
              "reattributed",
              reattribution);
      this.inputs =
          Map.of(
              "flows",
              raw(TOPICS.flows()),
              "policies",
              raw(TOPICS.policies()),
              "control",
              raw(TOPICS.control()),
              "native-policies",
              raw(TOPICS.nativePolicies()),
              "reattributed",
              raw(reattribution));
    }

    private TestInputTopic<byte[], byte[]> raw(Topic<?, ?> topic) {
      return raw(topic.name());
    }

    private TestInputTopic<byte[], byte[]> raw(String topic) {
      return driver
          .driver()
          .createInputTopic(topic, new ByteArraySerializer(), new ByteArraySerializer());
    }

    void run(int records) {
      for (int i = 0; i < records; i++) {
        step(i);
      }
      canaryIsLearned();
      countsAreBounded();
    }

    private void step(int i) {
      String topic =
          List.of(
                  "flows",
                  "flows",
                  "flows",
                  "policies",
                  "control",
                  "native-policies",
                  "reattributed")
              .get(random.nextInt(7));
      Input in =
          switch (topic) {
            case "flows" -> flow();
            case "policies" ->
                json(
                    Policies.kubernetes(
                        targetKey(),
                        random.nextBoolean() ? Mode.monitor : Mode.protect,
                        denyAll()));
            case "control" -> json(ControlCommand.resetLearning(targetKey(), START, "fuzz"));
            case "native-policies" -> nativePolicy();
            default ->
                new Input(
                    bytes(targetKey()), randomBytes(), List.of(), "random bytes", false, true);
          };
      long timestamp = timestamp();
      String line =
          "#"
              + i
              + " "
              + topic
              + " key="
              + (in.key == null ? "null" : "'" + str(in.key) + "'")
              + " ts="
              + timestamp
              + " "
              + in.what
              + " value="
              + (in.value == null ? "tombstone" : JsonMutator.abbreviate(str(in.value)));
      log.add(line);
      try {
        inputs.get(topic).pipeInput(new TestRecord<>(in.key, in.value, null, timestamp));
        driver.combine();
      } catch (RuntimeException e) {
        throw new AssertionError(failure("an exception escaped the topology at " + line), e);
      }
      List<TestRecord<byte[], byte[]>> dead = driver.newDeadLetters();
      assertThat(dead)
          .as(failure("at most one dead letter per record, at " + line))
          .hasSizeLessThanOrEqualTo(1);
      if (!dead.isEmpty()) {
        deadLettered++;
        String reason = DeadLetterHeaders.get(dead.get(0).headers(), DeadLetterHeaders.REASON);
        assertThat(in.valid)
            .as(failure("a valid record was dead-lettered (" + reason + "), at " + line))
            .isFalse();
        assertThat(topic)
            .as(failure("native-policies has no dead-letter path, at " + line))
            .isNotEqualTo("native-policies");
        assertThat(reason)
            .as(failure("the reason names the topic, at " + line))
            .contains(topicNames.get(topic));
        if (!in.path.isEmpty() && in.keyValid) {
          assertThat(namesAField(reason, in.path))
              .as(
                  failure(
                      "the reason '"
                          + reason
                          + "' names the field "
                          + String.join(".", in.path)
                          + " (or the object that holds it), at "
                          + line))
              .isTrue();
        }
      }
    }

    /** The reason names the field touched, or one of the objects that hold it. */
    private static boolean namesAField(String reason, List<String> path) {
      return path.stream()
          .filter(p -> !p.chars().allMatch(Character::isDigit))
          .anyMatch(reason::contains);
    }

    private Input flow() {
      FlowRecord f =
          BasicFixture.forwarded(
              Provider.cilium,
              START.plusSeconds(random.nextInt(3_600)),
              endpoint(),
              endpoint(),
              random.nextBoolean() ? Protocol.TCP : Protocol.UDP,
              1 + random.nextInt(65_535),
              count(),
              random.nextBoolean() ? Reporter.SOURCE : Reporter.DESTINATION);
      byte[] key = bytes(f.partitionKey());
      int kind = random.nextInt(4);
      if (kind == 0) {
        flowRecordsPiped++;
        flowCountPiped = saturatedAdd(flowCountPiped, f.count());
        return new Input(
            key,
            TOPICS.flows().valueSerde().serializer().serialize(TOPICS.flows().name(), f),
            List.of(),
            "binary flow",
            true,
            true);
      }
      if (kind == 1) {
        return new Input(
            random.nextBoolean() ? key : null, null, List.of(), "flow tombstone", true, true);
      }
      // A mutated JSON flow may still be a flow: count it as one that may have been learned.
      JsonMutator.Mutation m = JsonMutator.mutate(random, Json.mapper().valueToTree(f));
      flowRecordsPiped++;
      flowCountPiped = saturatedAdd(flowCountPiped, Math.max(f.count(), Long.MAX_VALUE / 2));
      return new Input(key, m.bytes(), m.path(), m.what(), false, true);
    }

    private Input json(Object valid) {
      String target =
          valid instanceof ControlCommand c ? c.target() : ((PolicySnapshot) valid).target().key();
      byte[] key = bytes(target);
      boolean keyValid = true;
      int k = random.nextInt(10);
      if (k == 0) {
        key = null;
        keyValid = false;
      } else if (k == 1) {
        key = bytes(random.nextBoolean() ? "" : "not/a/target");
        keyValid = false;
      } else if (k == 2) {
        key = bytes(targetKey()); // a key of another target (or the same: a duplicate)
      }
      int v = random.nextInt(4);
      if (v == 0) {
        return new Input(key, null, List.of(), "tombstone", keyValid, keyValid);
      }
      if (v == 1) {
        return new Input(key, write(valid), List.of(), "valid", keyValid, keyValid);
      }
      JsonMutator.Mutation m = JsonMutator.mutate(random, Json.mapper().valueToTree(valid));
      return new Input(key, m.bytes(), m.path(), m.what(), false, keyValid);
    }

    private Input nativePolicy() {
      String ns = NAMESPACES[random.nextInt(NAMESPACES.length)];
      NativePolicySnapshot p = new NativePolicySnapshot(ns, "np-" + random.nextInt(5), denyAll());
      byte[] key = bytes(p.key());
      return switch (random.nextInt(3)) {
        case 0 -> new Input(key, null, List.of(), "tombstone", true, true);
        case 1 -> new Input(key, write(p), List.of(), "valid", true, true);
        default -> {
          JsonMutator.Mutation m = JsonMutator.mutate(random, Json.mapper().valueToTree(p));
          yield new Input(key, m.bytes(), m.path(), m.what(), false, true);
        }
      };
    }

    /** A fresh pair of workloads whose flow must become a proposal, whatever came before. */
    private void canaryIsLearned() {
      FlowEndpoint src =
          BasicFixture.endpoint(
              "canary",
              "client",
              Map.of("app", "client"),
              "client-7d4b9c8f6-abcde",
              "10.9.0.1",
              "client");
      FlowEndpoint dst =
          BasicFixture.endpoint(
              "canary",
              "server",
              Map.of("app", "server"),
              "server-5f6d7c8b9-fghij",
              "10.9.0.2",
              "server");
      driver.pipe(
          BasicFixture.forwarded(
              Provider.cilium,
              START.plusSeconds(10),
              src,
              dst,
              Protocol.TCP,
              8080,
              1,
              Reporter.SOURCE));
      assertThat(driver.latestProposals())
          .as(failure("a valid flow after the sequence is learned"))
          .containsKey("canary/Deployment/client/Egress");
    }

    private void countsAreBounded() {
      for (ProposalSnapshot p : driver.latestProposals().values()) {
        for (RuleEvidence e : p.evidence()) {
          assertThat(e.getCount())
              .as(failure("evidence count of " + p.name()))
              .isBetween(0L, saturatedAdd(flowCountPiped, 1));
          for (PortEvidence port : e.getPorts()) {
            assertThat(port.getCount())
                .as(failure("port evidence count of " + p.name()))
                .isBetween(0L, saturatedAdd(flowCountPiped, 1));
          }
        }
      }
      for (var v : driver.newViolations()) {
        ViolationObservation o = v.value;
        assertThat(o.observations())
            .as(failure("observations of a violation"))
            .isBetween(1L, flowRecordsPiped + 1);
        assertThat(o.dstPort()).as(failure("port of a violation")).isBetween(0, 65_535);
      }
      assertThat(
              driver.metrics().count("dead.lettered", "topic", TOPICS.flows().name())
                  + driver.metrics().count("dead.lettered", "topic", TOPICS.policies().name())
                  + driver.metrics().count("dead.lettered", "topic", TOPICS.control().name())
                  + driver
                      .metrics()
                      .count(
                          "dead.lettered",
                          "topic",
                          NetworkEnforcerTopology.reattributionTopic(driver.config()).name()))
          .as(failure("dead letters counted as sent"))
          .isEqualTo(deadLettered);
    }

    private FlowEndpoint endpoint() {
      String ns = NAMESPACES[random.nextInt(NAMESPACES.length)];
      String d = DEPLOYMENTS[random.nextInt(DEPLOYMENTS.length)];
      return BasicFixture.endpoint(
          ns,
          d,
          Map.of("app", d),
          d + "-6b8f9c7d5-x" + random.nextInt(10),
          "10.0." + random.nextInt(4) + "." + (1 + random.nextInt(250)),
          d);
    }

    private String targetKey() {
      return NAMESPACES[random.nextInt(NAMESPACES.length)]
          + "/Deployment/"
          + DEPLOYMENTS[random.nextInt(DEPLOYMENTS.length)]
          + "/"
          + (random.nextBoolean() ? "Ingress" : "Egress");
    }

    private long count() {
      return switch (random.nextInt(10)) {
        case 0 -> Long.MAX_VALUE;
        case 1 -> Integer.MAX_VALUE + 1L;
        default -> 1 + random.nextInt(100);
      };
    }

    /**
     * Producer timestamps: mostly around the flows' times, sometimes at the edges a producer can
     * send.
     */
    private long timestamp() {
      return switch (random.nextInt(12)) {
        case 0 -> 0L;
        case 1 -> Long.MAX_VALUE / 2;
        case 2 -> Instant.parse("9999-12-31T23:59:59Z").toEpochMilli();
        default -> START.plusSeconds(random.nextInt(3_600)).toEpochMilli();
      };
    }

    private byte[] randomBytes() {
      byte[] b = new byte[random.nextInt(64)];
      random.nextBytes(b);
      return b;
    }

    private static NetworkPolicySpec denyAll() {
      return new NetworkPolicySpecBuilder()
          .withNewPodSelector()
          .endPodSelector()
          .withPolicyTypes("Ingress")
          .build();
    }

    private String failure(String what) {
      int from = Math.max(0, log.size() - 8);
      return what
          + "\nreproduce with -Dfuzz.seed="
          + seed
          + " -Dfuzz.sequences=1; last records:\n  "
          + String.join("\n  ", log.subList(from, log.size()));
    }

    private static long saturatedAdd(long a, long b) {
      long r = a + b;
      return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    private static byte[] write(Object value) {
      try {
        return Json.mapper().writeValueAsBytes(value);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private static byte[] bytes(String s) {
      return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String str(byte[] b) {
      return new String(b, StandardCharsets.UTF_8);
    }
  }

  /**
   * @param valid a record the processor must read (no dead letter)
   * @param keyValid the key is the record's target, so a refusal is about the value
   */
  private record Input(
      byte[] key, byte[] value, List<String> path, String what, boolean valid, boolean keyValid) {}
}
