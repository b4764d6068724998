package io.kubewarden.networkenforcer.common.flow;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Locale;
import java.util.Objects;

/**
 * The HTTP request an L7 proxy forwarded (Cilium's Hubble L7 records): its method and the path of
 * its URL, without host, query string or fragment. A path longer than {@link #MAX_PATH} characters
 * is cut there and marked {@code truncated}: a crawler's or an attacker's endless URLs must not
 * grow records and learned allow-lists without bound.
 *
 * @param method the request method, upper case ({@code GET})
 * @param path the URL's path, starting with {@code /}
 * @param truncated the path was longer and is only its first {@link #MAX_PATH} characters
 * @param connectionSeen its connection was published already (its L3/L4 record or an earlier
 *     request on it): this record adds only the request, and counts nothing where requests are not
 *     learned
 */
@JsonInclude(JsonInclude.Include.NON_DEFAULT)
public record HttpRequest(String method, String path, boolean truncated, boolean connectionSeen) {
  public static final int MAX_PATH = 256;

  /** Longer than any method in use; a longer "method" is not one. */
  static final int MAX_METHOD = 16;

  public HttpRequest {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(path, "path");
  }

  /** The first request seen of its connection. */
  public HttpRequest(String method, String path, boolean truncated) {
    this(method, path, truncated, false);
  }

  /** This request, on a connection published already. */
  public HttpRequest onSeenConnection() {
    return new HttpRequest(method, path, truncated, true);
  }

  /**
   * The request of {@code method} and {@code url} (absolute, {@code http://host:port/p?q}, or a
   * path), or null when there is no usable method: an empty or overlong one, or one that is not a
   * token of letters.
   */
  public static HttpRequest of(String method, String url) {
    if (!isMethod(method)) {
      return null;
    }
    String path = path(url == null ? "" : url);
    boolean truncated = path.length() > MAX_PATH;
    return new HttpRequest(
        method.toUpperCase(Locale.ROOT), truncated ? path.substring(0, MAX_PATH) : path, truncated);
  }

  /** Whether {@code method} can be one: 1 to {@link #MAX_METHOD} letters. */
  public static boolean isMethod(String method) {
    if (method == null || method.isEmpty() || method.length() > MAX_METHOD) {
      return false;
    }
    for (int i = 0; i < method.length(); i++) {
      char c = method.charAt(i);
      if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z')) {
        return false;
      }
    }
    return true;
  }

  /** The path of a URL: after scheme and authority, before query and fragment; "/" when empty. */
  static String path(String url) {
    int start = 0;
    int scheme = url.indexOf("://");
    if (scheme >= 0 && url.indexOf('/') > scheme) {
      int slash = url.indexOf('/', scheme + 3);
      start = slash < 0 ? url.length() : slash;
    }
    int end = url.length();
    for (int i = start; i < url.length(); i++) {
      char c = url.charAt(i);
      if (c == '?' || c == '#') {
        end = i;
        break;
      }
    }
    String path = url.substring(start, end);
    return path.startsWith("/") ? path : "/" + path;
  }
}
