package io.kubewarden.networkenforcer.writer.proposals;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.kubewarden.networkenforcer.common.crd.WorkloadNetworkPolicyProposalSpec;
import io.kubewarden.networkenforcer.common.json.Json;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The value of the annotation {@value ProposalReconciler#LEARNED_SPEC}: the learned spec the writer
 * applied last. Kubernetes allows 256 KiB of annotations per object, and a learned rule is about
 * 200 bytes of JSON, so the spec of a target with more than about 1,300 peers (the cluster DNS, a
 * monitoring system) did not fit and the API server refused the whole proposal. A spec of more than
 * {@value #PLAIN_MAX_CHARS} characters is therefore kept gzipped and base64-encoded behind the
 * prefix {@value #GZIP_PREFIX} (a learned spec compresses about fifteen-fold); smaller ones stay
 * plain JSON, readable as they always were.
 */
final class LearnedSpecAnnotation {
  static final String GZIP_PREFIX = "gzip+base64:";

  /** Specs up to this many characters of JSON (about 80 rules) are kept as they are. */
  static final int PLAIN_MAX_CHARS = 16 * 1024;

  /**
   * More than any spec an object of etcd's size limit can hold: a value that inflates beyond is not
   * ours.
   */
  private static final int INFLATED_MAX_BYTES = 64 * 1024 * 1024;

  private LearnedSpecAnnotation() {}

  static String encode(WorkloadNetworkPolicyProposalSpec spec) {
    String json;
    try {
      json = Json.mapper().writeValueAsString(spec);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    if (json.length() <= PLAIN_MAX_CHARS) {
      return json;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(json.length() / 8);
    try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
      gzip.write(json.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return GZIP_PREFIX + Base64.getEncoder().encodeToString(bytes.toByteArray());
  }

  /**
   * The spec of an annotation value, plain or gzipped.
   *
   * @throws IllegalArgumentException when the value is neither (a person edited it, or it is cut
   *     short)
   */
  static WorkloadNetworkPolicyProposalSpec decode(String value) {
    String json =
        value.startsWith(GZIP_PREFIX) ? inflate(value.substring(GZIP_PREFIX.length())) : value;
    try {
      return Json.mapper().readValue(json, WorkloadNetworkPolicyProposalSpec.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not a proposal spec: " + e.getOriginalMessage(), e);
    }
  }

  private static String inflate(String base64) {
    byte[] compressed;
    try {
      compressed = Base64.getDecoder().decode(base64);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("not base64: " + e.getMessage(), e);
    }
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(compressed))) {
      byte[] json = in.readNBytes(INFLATED_MAX_BYTES + 1);
      if (json.length > INFLATED_MAX_BYTES) {
        throw new IllegalArgumentException(
            "inflates to more than " + INFLATED_MAX_BYTES + " bytes");
      }
      return new String(json, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException("not gzip: " + e.getMessage(), e);
    }
  }
}
