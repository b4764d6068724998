package io.kubewarden.networkenforcer.common.http;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.UserInfo;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes authentication and authorization of a request, the way kube-rbac-proxy does it: the
 * bearer token goes to the API server in a TokenReview (who is it?), then a SubjectAccessReview
 * asks whether that user may use the HTTP verb on the non-resource URL (e.g. {@code get} on {@code
 * /metrics}), which a ClusterRole with {@code nonResourceURLs} grants. Verdicts are cached briefly
 * per token, verb and path so a scraper does not cost two API requests per scrape; the cache keys
 * on a hash of the token, never the token itself.
 */
public final class KubernetesAccessCheck implements AccessCheck {
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesAccessCheck.class);
  private static final String BEARER = "bearer ";
  private static final int MAX_CACHED = 1024;

  private final KubernetesClient client;
  private final Duration allowedTtl;
  private final Duration refusedTtl;
  private final Clock clock;
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();

  private record Cached(Verdict verdict, Instant until) {}

  /**
   * Allowed verdicts cached one minute (a revoked binding takes effect within it), refusals 10 s.
   */
  public KubernetesAccessCheck(KubernetesClient client) {
    this(client, Duration.ofMinutes(1), Duration.ofSeconds(10), Clock.systemUTC());
  }

  KubernetesAccessCheck(
      KubernetesClient client, Duration allowedTtl, Duration refusedTtl, Clock clock) {
    this.client = client;
    this.allowedTtl = allowedTtl;
    this.refusedTtl = refusedTtl;
    this.clock = clock;
  }

  @Override
  public Verdict check(String authorization, String path, String method) {
    if (authorization == null
        || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())
        || authorization.substring(BEARER.length()).isBlank()) {
      return new Verdict(
          401, "a Kubernetes bearer token is required (Authorization: Bearer <token>)");
    }
    String token = authorization.substring(BEARER.length()).trim();
    String verb = verb(method);
    String key = sha256(token) + ' ' + verb + ' ' + path;
    Instant now = clock.instant();
    Cached cached = cache.get(key);
    if (cached != null && now.isBefore(cached.until())) {
      return cached.verdict();
    }
    Verdict verdict;
    try {
      verdict = review(token, verb, path);
    } catch (KubernetesClientException e) {
      LOG.warn("cannot check a request to {} with the API server: {}", path, e.getMessage());
      return new Verdict(503, "cannot check the token with the Kubernetes API server; try again");
    }
    if (cache.size() >= MAX_CACHED) {
      cache.clear();
    }
    cache.put(key, new Cached(verdict, now.plus(verdict.allowed() ? allowedTtl : refusedTtl)));
    return verdict;
  }

  private Verdict review(String token, String verb, String path) {
    TokenReview review =
        client
            .authentication()
            .v1()
            .tokenReviews()
            .create(new TokenReviewBuilder().withNewSpec().withToken(token).endSpec().build());
    if (review.getStatus() == null || !Boolean.TRUE.equals(review.getStatus().getAuthenticated())) {
      return new Verdict(401, "the bearer token is not valid for this cluster");
    }
    UserInfo user = review.getStatus().getUser();
    SubjectAccessReview access =
        client
            .authorization()
            .v1()
            .subjectAccessReview()
            .create(
                new SubjectAccessReviewBuilder()
                    .withNewSpec()
                    .withUser(user.getUsername())
                    .withUid(user.getUid())
                    .withGroups(user.getGroups())
                    .withExtra(user.getExtra())
                    .withNewNonResourceAttributes()
                    .withPath(path)
                    .withVerb(verb)
                    .endNonResourceAttributes()
                    .endSpec()
                    .build());
    if (access.getStatus() == null || !Boolean.TRUE.equals(access.getStatus().getAllowed())) {
      return new Verdict(
          403,
          user.getUsername()
              + " may not "
              + verb
              + " "
              + path
              + " (grant it with a ClusterRole rule on nonResourceURLs)");
    }
    return Verdict.ALLOWED;
  }

  /** The RBAC verb of an HTTP method on a non-resource URL, as the API server maps it. */
  static String verb(String method) {
    return switch (method.toUpperCase(Locale.ROOT)) {
      case "GET", "HEAD" -> "get";
      case "POST" -> "create";
      case "PUT" -> "update";
      case "PATCH" -> "patch";
      case "DELETE" -> "delete";
      default -> method.toLowerCase(Locale.ROOT);
    };
  }

  private static String sha256(String token) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JVM", e);
    }
  }
}
