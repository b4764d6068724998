package io.kubewarden.networkenforcer.writer.proposals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.json.Json;
import io.kubewarden.networkenforcer.writer.Fixtures;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

class LearnedSpecAnnotationTest {
  /** Kubernetes' limit on all annotations of one object together. */
  private static final int ANNOTATIONS_MAX_BYTES = 256 * 1024;

  @Test
  void aSmallSpecStaysPlainJsonAsEarlierWritersKeptIt() throws Exception {
    WorkloadNetworkPolicyProposalSpec spec = spec(3);
    String value = LearnedSpecAnnotation.encode(spec);
    assertThat(value).isEqualTo(Json.mapper().writeValueAsString(spec));
    assertThat(LearnedSpecAnnotation.decode(value)).isEqualTo(spec);
  }

  @Test
  void theSpecOfThousandsOfPeersIsGzippedFarUnderTheAnnotationLimitAndReadsBackEqual()
      throws Exception {
    WorkloadNetworkPolicyProposalSpec spec = spec(5_000);
    int plainBytes = Json.mapper().writeValueAsBytes(spec).length;
    String value = LearnedSpecAnnotation.encode(spec);
    assertThat(plainBytes)
        .as("as plain JSON it would not fit")
        .isGreaterThan(ANNOTATIONS_MAX_BYTES);
    assertThat(value).startsWith(LearnedSpecAnnotation.GZIP_PREFIX);
    assertThat(value.length()).as("%d bytes of JSON", plainBytes).isLessThan(plainBytes / 8);
    assertThat(LearnedSpecAnnotation.decode(value)).isEqualTo(spec);
  }

  @Test
  void aSpecJustOverThePlainLimitIsGzippedAndOneAtItIsNot() throws Exception {
    WorkloadNetworkPolicyProposalSpec small = spec(1);
    int rules = 1;
    while (Json.mapper().writeValueAsString(spec(rules + 1)).length()
        <= LearnedSpecAnnotation.PLAIN_MAX_CHARS) {
      rules++;
    }
    assertThat(LearnedSpecAnnotation.encode(spec(rules))).startsWith("{");
    assertThat(LearnedSpecAnnotation.encode(spec(rules + 1)))
        .startsWith(LearnedSpecAnnotation.GZIP_PREFIX);
    assertThat(LearnedSpecAnnotation.decode(LearnedSpecAnnotation.encode(small))).isEqualTo(small);
  }

  @Test
  void aValueThatIsNeitherSaysWhatItIs() throws Exception {
    assertThatThrownBy(() -> LearnedSpecAnnotation.decode("{\"backend\": "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not a proposal spec");
    assertThatThrownBy(
            () -> LearnedSpecAnnotation.decode(LearnedSpecAnnotation.GZIP_PREFIX + "%%%"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not base64");
    String notGzip = Base64.getEncoder().encodeToString("plain".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(
            () -> LearnedSpecAnnotation.decode(LearnedSpecAnnotation.GZIP_PREFIX + notGzip))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not gzip");
    String cutShort = LearnedSpecAnnotation.encode(spec(5_000));
    assertThatThrownBy(
            () -> LearnedSpecAnnotation.decode(cutShort.substring(0, cutShort.length() / 2)))
        .isInstanceOf(IllegalArgumentException.class);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
      gzip.write("[1, 2]".getBytes(StandardCharsets.UTF_8));
    }
    assertThatThrownBy(
            () ->
                LearnedSpecAnnotation.decode(
                    LearnedSpecAnnotation.GZIP_PREFIX
                        + Base64.getEncoder().encodeToString(bytes.toByteArray())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not a proposal spec");
  }

  /** The ingress spec of target "dns" with one rule per peer, as the processor learns it. */
  private static WorkloadNetworkPolicyProposalSpec spec(int peers) {
    List<String> names = new ArrayList<>(peers);
    for (int i = 0; i < peers; i++) {
      names.add("peer-" + i);
    }
    return Fixtures.proposalSpec("dns", names);
  }
}
