package io.kubewarden.networkenforcer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.testing.JsonMutator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded fuzzing of the files {@code simulate} and {@code diff} read, through the command line as
 * users run it: policies (WorkloadNetworkPolicyProposal, WorkloadNetworkPolicy, NetworkPolicy,
 * AuthorizationPolicy, a {@code kind: List}) as multi-document YAML, JSON, a directory of files or
 * standard input, with documents mutated (a field removed or set to a wrong type, an empty name, an
 * out-of-range port, bytes cut or flipped), and the {@code --cluster-state} file mutated the same
 * way.
 *
 * <p>The property for every run: exit 0 or 3 (the answer) or 2 with one {@code error:} line that
 * names the option, file or document to fix and no Java class name, never 1 (a runtime failure);
 * inputs left valid always give an answer. Reproduce with {@code -Dfuzz.seed=S -Dfuzz.runs=N}.
 */
class PolicyInputsFuzzingTest {
  private static final String PROPOSAL = PolicyFixtures.SERVER_INGRESS;
  private static final String POLICY = PolicyFixtures.promoted(PROPOSAL, "monitor");
  private static final String NETWORK_POLICY =
      """
      apiVersion: networking.k8s.io/v1
      kind: NetworkPolicy
      metadata: {name: allow-client, namespace: demo}
      spec:
        podSelector: {matchLabels: {app: http-server}}
        policyTypes: [Ingress]
        ingress:
        - from:
          - podSelector: {matchLabels: {app: http-client}}
          ports:
          - {protocol: UDP, port: 18081}
      """;
  private static final String AUTHORIZATION_POLICY =
      """
      apiVersion: security.istio.io/v1
      kind: AuthorizationPolicy
      metadata: {name: allow-client, namespace: demo}
      spec:
        action: ALLOW
        selector: {matchLabels: {app: http-server}}
        rules:
        - from:
          - source: {principals: [cluster.local/ns/demo/sa/http-client]}
          to:
          - operation: {ports: ["18080"]}
      """;

  /**
   * What a message about a bad input must not show: the program's insides instead of what to fix.
   */
  private static final List<String> INSIDES =
      List.of("java.", "com.fasterxml", "io.kubewarden", "Exception");

  @TempDir Path dir;

  @Test
  void simulateAndDiffAnswerOrSayWhatToFix() throws IOException {
    long seed = Long.getLong("fuzz.seed", 20_261_206L);
    int runs = Integer.getInteger("fuzz.runs", 60);
    Random random = new Random(seed);
    List<JsonNode> templates =
        List.of(tree(PROPOSAL), tree(POLICY), tree(NETWORK_POLICY), tree(AUTHORIZATION_POLICY));
    JsonNode clusterState = Json.mapper().readTree(CliRun.sample("cluster-state.json").toFile());
    int answered = 0;
    int refused = 0;
    for (int run = 0; run < runs; run++) {
      Path runDir = Files.createDirectories(dir.resolve("run-" + run));
      Inputs policies = policies(random, runDir, templates);
      boolean clusterValid = random.nextInt(4) != 0;
      String clusterWhat = "";
      Path cluster = CliRun.sample("cluster-state.json");
      if (!clusterValid) {
        JsonMutator.Mutation m = clusterState(random, clusterState);
        boolean yaml = m.tree() != null && random.nextBoolean();
        cluster =
            Files.write(
                runDir.resolve("cluster-state" + (yaml ? ".yaml" : ".json")),
                yaml ? Json.yaml().writeValueAsBytes(m.tree()) : m.bytes());
        clusterWhat = "; cluster state: " + m.what() + " " + describe(cluster);
      }
      String what =
          "run "
              + run
              + " (reproduce with -Dfuzz.seed="
              + seed
              + " -Dfuzz.runs="
              + (run + 1)
              + "): "
              + policies.what
              + clusterWhat;
      List<String> simulate =
          new ArrayList<>(
              List.of(
                  "simulate",
                  "--policy",
                  policies.source,
                  "--input",
                  CliRun.sample("hubble-flows.jsonl").toString(),
                  "--cluster-state",
                  cluster.toString()));
      CliRun s =
          policies.stdin == null
              ? CliRun.run(simulate.toArray(String[]::new))
              : CliRun.runWithStdin(policies.stdin, simulate.toArray(String[]::new));
      check("simulate", s, policies.valid && clusterValid, what);
      // diff: the generated documents as the proposals, compared with a valid policy, and the other
      // way round.
      Path valid = Files.writeString(runDir.resolve("valid-policy.yaml"), POLICY);
      String[] asProposals = {"diff", "--proposal", policies.source, "--policy", valid.toString()};
      String[] asPolicies = {
        "diff",
        "--proposal",
        Files.writeString(runDir.resolve("valid-proposal.yaml"), PROPOSAL).toString(),
        "--policy",
        policies.source
      };
      boolean onlyWorkloadKinds =
          policies.kinds.stream().allMatch(k -> k.startsWith("WorkloadNetworkPolicy"));
      CliRun d1 =
          policies.stdin == null
              ? CliRun.run(asProposals)
              : CliRun.runWithStdin(policies.stdin, asProposals);
      check(
          "diff --proposal",
          d1,
          policies.valid && policies.kinds.equals(Set.of("WorkloadNetworkPolicyProposal")),
          what);
      CliRun d2 =
          policies.stdin == null
              ? CliRun.run(asPolicies)
              : CliRun.runWithStdin(policies.stdin, asPolicies);
      check("diff --policy", d2, policies.valid && onlyWorkloadKinds, what);
      for (CliRun r : List.of(s, d1, d2)) {
        if (r.exitCode() == 2) {
          refused++;
        } else {
          answered++;
        }
      }
    }
    System.out.printf(
        "policy inputs fuzzed: %d runs of simulate and diff (x3 commands), %d answered, %d refused, "
            + "seed %d%n",
        runs, answered, refused, seed);
  }

  private static void check(String command, CliRun r, boolean valid, String what) {
    String context = command + " at " + what + "\nexit " + r.exitCode() + "\nerr: " + r.err();
    assertThat(r.exitCode()).as("never a runtime failure: " + context).isNotEqualTo(1);
    if (valid) {
      assertThat(r.exitCode()).as("valid inputs get an answer: " + context).isIn(0, 3);
    }
    if (r.exitCode() == 2) {
      String message = r.err().strip();
      assertThat(message).as(context).startsWith("error: ").doesNotContain("\n");
      for (String inside : INSIDES) {
        assertThat(message).as("a user-facing message: " + context).doesNotContain(inside);
      }
      assertThat(message)
          .as("names what to fix: " + context)
          .containsAnyOf(
              "--policy", "--proposal", "--cluster-state", "cluster-state file", "document ");
    } else {
      assertThat(r.exitCode()).as(context).isIn(0, 3);
    }
  }

  /** The policy source of one run: documents in one of the layouts the option takes. */
  private record Inputs(
      String source, String stdin, boolean valid, Set<String> kinds, String what) {}

  private static Inputs policies(Random random, Path runDir, List<JsonNode> templates)
      throws IOException {
    int count = 1 + random.nextInt(4);
    List<JsonNode> docs = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    Set<String> kinds = new TreeSet<>();
    boolean valid = true;
    byte[] raw = null;
    for (int i = 0; i < count; i++) {
      JsonNode doc = templates.get(random.nextInt(templates.size()));
      kinds.add(doc.path("kind").asText());
      if (random.nextInt(3) == 0) {
        JsonMutator.Mutation m = JsonMutator.mutate(random, doc);
        valid = false;
        notes.add("document " + (i + 1) + ": " + m.what());
        if (m.tree() == null) {
          raw = m.bytes(); // the bytes of this document, cut or flipped: the whole source is those
          // bytes
          docs.clear();
          break;
        }
        doc = m.tree();
      }
      docs.add(doc);
    }
    if (raw != null) {
      Path file = Files.write(runDir.resolve("policies.json"), raw);
      return new Inputs(
          file.toString(), null, false, kinds, String.join("; ", notes) + " in " + describe(file));
    }
    if (docs.size() > 1 && random.nextInt(4) == 0) {
      // The shape kubectl get -o yaml prints.
      var list = Json.mapper().createObjectNode().put("apiVersion", "v1").put("kind", "List");
      docs.forEach(list.putArray("items")::add);
      docs = List.of(list);
      notes.add("as a List");
    }
    String layout = List.of("yaml", "json", "dir", "stdin").get(random.nextInt(4));
    String summary = String.join("; ", notes) + " " + kinds + " via " + layout;
    switch (layout) {
      case "json" -> {
        if (docs.size() > 1) {
          layout = "yaml";
        } else {
          Path file =
              Files.write(
                  runDir.resolve("policies.json"), Json.mapper().writeValueAsBytes(docs.get(0)));
          return new Inputs(file.toString(), null, valid, kinds, summary + " " + describe(file));
        }
      }
      case "dir" -> {
        Path d = Files.createDirectories(runDir.resolve("policies/nested"));
        Files.writeString(runDir.resolve("policies/README.txt"), "not a manifest");
        for (int i = 0; i < docs.size(); i++) {
          String ext = List.of(".yaml", ".yml", ".json").get(random.nextInt(3));
          byte[] bytes =
              ext.equals(".json")
                  ? Json.mapper().writeValueAsBytes(docs.get(i))
                  : Json.yaml().writeValueAsBytes(docs.get(i));
          Files.write((i % 2 == 0 ? d : d.getParent()).resolve("p" + i + ext), bytes);
        }
        return new Inputs(d.getParent().toString(), null, valid, kinds, summary);
      }
      default -> {}
    }
    StringBuilder yaml = new StringBuilder();
    for (JsonNode doc : docs) {
      yaml.append(Json.yaml().writeValueAsString(doc));
    }
    if ("stdin".equals(layout)) {
      return new Inputs("-", yaml.toString(), valid, kinds, summary + "\n" + yaml);
    }
    Path file = Files.writeString(runDir.resolve("policies.yaml"), yaml);
    return new Inputs(file.toString(), null, valid, kinds, summary + " " + describe(file));
  }

  /**
   * The sample cluster state with one of its objects (where the reader looks), or the List,
   * mutated.
   */
  private static JsonMutator.Mutation clusterState(Random random, JsonNode valid)
      throws IOException {
    JsonNode copy = valid.deepCopy();
    JsonNode items = copy.path("items");
    if (items.isArray() && items.size() > 0 && random.nextBoolean()) {
      int i = random.nextInt(items.size());
      JsonMutator.Mutation m = JsonMutator.mutate(random, items.get(i));
      if (m.tree() != null) {
        ((ArrayNode) items).set(i, m.tree());
        return new JsonMutator.Mutation(
            copy, Json.mapper().writeValueAsBytes(copy), m.path(), "item " + i + ": " + m.what());
      }
    }
    return JsonMutator.mutate(random, copy);
  }

  private static String describe(Path file) {
    try {
      String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
      return "("
          + file.getFileName()
          + ": "
          + JsonMutator.abbreviate(text.replace('\n', ' '))
          + ")";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode tree(String yaml) {
    try {
      return Json.yaml().readTree(yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
