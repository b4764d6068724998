package io.kubewarden.networkenforcer.writer.proposals;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyStatus;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.common.loss.DataPlaneLoss;
import io.kubewarden.networkenforcer.common.proposal.ProposalSnapshot;
import io.kubewarden.networkenforcer.common.topics.RecordDecodeException;
import io.kubewarden.networkenforcer.common.topics.Topic;
import io.kubewarden.networkenforcer.common.topics.Topics;
import io.kubewarden.networkenforcer.common.violation.ViolationObservation;
import io.kubewarden.networkenforcer.testing.JsonMutator;
import io.kubewarden.networkenforcer.writer.Fixtures;
import io.kubewarden.networkenforcer.writer.observations.Principals;
import io.kubewarden.networkenforcer.writer.observations.SourcedObservation;
import io.kubewarden.networkenforcer.writer.reconcile.ObjectKey;
import io.kubewarden.networkenforcer.writer.status.StatusMerger;
import io.kubewarden.networkenforcer.writer.status.ViolationCheck;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Seeded fuzzing of what the writer does with the records it reads, record after record, along the
 * consumers' own decoding and checks: violations (decode, {@link ViolationCheck}, then merged into
 * a status as a status sync merges them), proposals (decode, {@link ProposalConsumer#keyOf}, the
 * work queue key) and data-plane-loss (decode, {@link LossLedger}, the hold and its end as the loss
 * consumer computes them). Valid records, one JSON field removed or set out of range, cut or
 * flipped bytes, tombstones, missing and foreign keys, interleaved.
 *
 * <p>The property: a record is either taken or refused with the exceptions the consumer turns into
 * a dead letter (and the refusal names the field the fuzzer touched), never another exception
 * (which would end the consumer's thread); every count stays within what was read. Reproduce with
 * {@code -Dfuzz.seed=S -Dfuzz.records=N}.
 */
class WriterRecordsFuzzingTest {
  private static final Topics TOPICS = Topics.withDefaultPrefix();
  private static final Instant T = Instant.parse("2026-08-03T15:40:00Z");
  private static final String PROPOSAL =
      "{\"name\":\"deployment-api-ingress\",\"namespace\":\"shop\",\"spec\":"
          + "{\"backend\":\"kubernetes\",\"kubernetes\":{\"ingress\":[{\"from\":[{\"podSelector\":{\"matchLabels\":"
          + "{\"app\":\"web\"}}}],\"ports\":[{\"protocol\":\"TCP\",\"port\":8080}]}],\"podSelector\":{\"matchLabels\":"
          + "{\"app\":\"api\"}},\"policyTypes\":[\"Ingress\"]},\"targetRef\":{\"kind\":\"Deployment\",\"name\":\"api\"},"
          + "\"direction\":\"Ingress\"},\"evidence\":[],\"updatedAt\":\"2026-08-03T15:40:00Z\"}";

  private final List<String> log = new ArrayList<>();
  private long seed;

  @Test
  void recordAfterRecordTheWriterTakesOrParksNeverFails() throws Exception {
    seed = Long.getLong("fuzz.seed", 20_261_207L);
    int records = Integer.getInteger("fuzz.records", 3_000);
    Random random = new Random(seed);
    // A refused request's violation, so its method and path are mutated too.
    ObjectNode violation = Json.mapper().valueToTree(Fixtures.violation("api", "web", 8080, T));
    violation.set("http", Json.mapper().valueToTree(new HttpRequest("PUT", "/admin", false)));
    JsonNode proposal = Json.mapper().readTree(PROPOSAL);
    JsonNode loss =
        Json.mapper()
            .valueToTree(
                new DataPlaneLoss(Provider.cilium, "kind/worker", T, T.plusSeconds(5), 12, 2));
    LossLedger ledger = new LossLedger(Duration.ofDays(7));
    StatusMerger merger = new StatusMerger();
    WorkloadNetworkPolicyStatus status = null;
    List<SourcedObservation> pending = new ArrayList<>();
    long observationsTaken = 0;
    int taken = 0;
    int parked = 0;
    for (int i = 0; i < records; i++) {
      int topic = random.nextInt(3);
      JsonNode valid = topic == 0 ? violation : topic == 1 ? proposal : loss;
      Input in = input(random, valid);
      int keyChoice = random.nextInt(8);
      String key = key(keyChoice, topic, valid);
      boolean producersKey = keyChoice > 2;
      log.add(
          "#"
              + i
              + " "
              + List.of("violations", "proposals", "data-plane-loss").get(topic)
              + " key="
              + key
              + " "
              + in.what
              + " value="
              + (in.value == null ? "tombstone" : JsonMutator.abbreviate(str(in.value))));
      try {
        if (topic == 0) {
          ViolationObservation o = read(TOPICS.violations(), in);
          if (o == null) {
            continue;
          }
          var problem = ViolationCheck.problem(key, o);
          if (problem.isPresent()) {
            assertThat(in.valid && producersKey)
                .as(failure("a valid violation parked: " + problem.get()))
                .isFalse();
            parked++;
            continue;
          }
          o = Principals.withoutScheme(o);
          observationsTaken += o.observations();
          pending.add(new SourcedObservation(TOPICS.violations().name(), 0, i, o));
          taken++;
          if (pending.size() >= 20) {
            StatusMerger.Result r =
                merger.merge(
                    new StatusMerger.Input(
                        status, 1L, pending, null, null, null, T.plusSeconds(i)));
            status = r.status();
            pending.clear();
            assertThat(status.getViolationCount())
                .as(failure("violationCount"))
                .isBetween(0L, observationsTaken);
          }
        } else if (topic == 1) {
          ProposalSnapshot p = read(TOPICS.proposals(), in);
          ObjectKey k = ProposalConsumer.keyOf(key, p);
          assertThat(ObjectKey.parse(k.toString()))
              .as(failure("the work queue key reads back"))
              .isEqualTo(k);
          taken++;
        } else {
          DataPlaneLoss l = read(TOPICS.dataPlaneLoss(), in);
          if (l == null) {
            continue;
          }
          // The loss consumer's checks, with the writer's clock at the flows' time.
          Instant now = T.plusSeconds(i);
          LossCheck.problem(l, now)
              .ifPresent(
                  p -> {
                    throw new IllegalArgumentException(p);
                  });
          ledger.add(l);
          // What the loss consumer and the reconcilers compute after each record.
          ledger.latestLoss().map(t -> t.plus(ledger.quietPeriod()));
          ledger
              .holdAt(now)
              .ifPresent(
                  h ->
                      // The hold's total is exactly its entries' sum, capped at Long.MAX_VALUE
                      // (never wrapped), computed here without the ledger's arithmetic.
                      assertThat(h.total())
                          .as(failure("lost total"))
                          .isEqualTo(
                              h.lostEvents().stream()
                                  .map(e -> BigInteger.valueOf(e.getLostEvents()))
                                  .reduce(BigInteger.ZERO, BigInteger::add)
                                  .min(BigInteger.valueOf(Long.MAX_VALUE))
                                  .longValueExact()));
          taken++;
        }
      } catch (RecordDecodeException | IllegalArgumentException e) {
        // What the consumers park on the dead-letter topic.
        assertThat(in.valid && producersKey)
            .as(failure("a valid record refused: " + e.getMessage()))
            .isFalse();
        if (e instanceof RecordDecodeException && !in.path.isEmpty()) {
          assertThat(
                  in.path.stream()
                      .filter(p -> !p.chars().allMatch(Character::isDigit))
                      .anyMatch(e.getMessage()::contains))
              .as(
                  failure(
                      "the reason '"
                          + e.getMessage()
                          + "' names the field "
                          + String.join(".", in.path)))
              .isTrue();
        }
        parked++;
      } catch (RuntimeException e) {
        throw new AssertionError(failure("an exception the consumer does not park"), e);
      }
    }
    System.out.printf(
        "writer records fuzzed: %d (taken %d, parked %d), seed %d%n", records, taken, parked, seed);
  }

  private record Input(byte[] value, List<String> path, String what, boolean valid) {}

  private static Input input(Random random, JsonNode valid) throws Exception {
    return switch (random.nextInt(4)) {
      case 0 -> new Input(Json.mapper().writeValueAsBytes(valid), List.of(), "valid", true);
      case 1 -> new Input(null, List.of(), "tombstone", true);
      default -> {
        JsonMutator.Mutation m = JsonMutator.mutate(random, valid);
        yield new Input(m.bytes(), m.path(), m.what(), false);
      }
    };
  }

  /** The record key: the one its producer writes, mostly; none, empty or another one sometimes. */
  private static String key(int choice, int topic, JsonNode valid) {
    return switch (choice) {
      case 0 -> null;
      case 1 -> "";
      case 2 -> "other/key";
      default ->
          topic == 0
              ? valid.path("policyNamespace").asText() + "/" + valid.path("policyName").asText()
              : topic == 1 ? "shop/Deployment/api/Ingress" : "cilium/kind/worker";
    };
  }

  private static <V> V read(Topic<String, V> topic, Input in) {
    return topic.valueSerde().deserializer().deserialize(topic.name(), in.value);
  }

  private String failure(String what) {
    int from = Math.max(0, log.size() - 6);
    return what
        + "\nreproduce with -Dfuzz.seed="
        + seed
        + "; last records:\n  "
        + String.join("\n  ", log.subList(from, log.size()));
  }

  private static String str(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
