package io.kubewarden.networkenforcer.processor.learning;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.kubewarden.networkenforcer.common.flow.HttpRequest;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import java.util.Collections;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * One learned port of a peer; with L7 HTTP learning ({@code LearningSettings.l7Http}) also the HTTP
 * requests seen on it.
 *
 * @param http the requests, each {@code METHOD path} ({@link #route}); empty: the port allows any
 *     traffic (L3/L4 only)
 * @param httpUnrestricted more distinct requests than the cap were seen: the port stays L3/L4 only
 *     and learns no more of them (recorded, so a reviewer sees why the port has no HTTP rules)
 */
public record LearnedPort(
    Protocol protocol,
    int port,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) SortedSet<String> http,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean httpUnrestricted) {

  /** Marks a path cut at {@link HttpRequest#MAX_PATH}: never part of a real (encoded) URL path. */
  static final String TRUNCATED = "\u2026";

  @JsonCreator
  public LearnedPort {
    http =
        http == null || http.isEmpty() || httpUnrestricted
            ? Collections.emptySortedSet()
            : Collections.unmodifiableSortedSet(new TreeSet<>(http));
  }

  public LearnedPort(Protocol protocol, int port) {
    this(protocol, port, null, false);
  }

  /** How a request is kept: {@code GET /orders}, a cut path ending in {@link #TRUNCATED}. */
  static String route(HttpRequest request) {
    return request.method() + " " + request.path() + (request.truncated() ? TRUNCATED : "");
  }

  /**
   * Whether learning {@code route} would change this port: it is new and the port still learns
   * requests.
   */
  boolean wouldLearn(String route) {
    return !httpUnrestricted && !http.contains(route);
  }

  /** This port with {@code route} too, or unrestricted once more than {@code max} were seen. */
  LearnedPort withRoute(String route, int max) {
    if (!wouldLearn(route)) {
      return this;
    }
    if (http.size() >= max) {
      return new LearnedPort(protocol, port, null, true);
    }
    TreeSet<String> routes = new TreeSet<>(http);
    routes.add(route);
    return new LearnedPort(protocol, port, routes, false);
  }

  /** Sort key: protocol, then port number (zero-padded so text order is numeric order). */
  public String key() {
    // Built by hand: it is made for every flow, and String.format is slow.
    if (port < 0) {
      return protocol.name() + "/" + String.format("%05d", port);
    }
    String digits = Integer.toString(port);
    return protocol.name() + "/" + "00000".substring(Math.min(5, digits.length())) + digits;
  }
}
