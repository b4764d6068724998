package io.kubewarden.networkenforcer.writer.reconcile;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Whether a namespace and name read from a record can name an object on the API server. A record
 * whose names cannot is refused where it is read (dead-lettered): the API server would refuse every
 * write for it, and a {@code /} in them would make an {@link ObjectKey} that reads back as another
 * object.
 */
public final class ObjectNames {
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");

  private ObjectNames() {}

  /** Empty when {@code namespace/name} can name an object; otherwise why not, naming the fields. */
  public static Optional<String> problem(
      String namespaceField, String namespace, String nameField, String name) {
    if (namespace == null || !DNS_LABEL.matcher(namespace).matches()) {
      return Optional.of(
          namespaceField
              + " '"
              + namespace
              + "' is not a namespace name (lower-case letters, digits "
              + "and '-', at most 63)");
    }
    if (name == null || !DNS_SUBDOMAIN.matcher(name).matches()) {
      return Optional.of(
          nameField
              + " '"
              + name
              + "' is not an object name (lower-case letters, digits, '-' and "
              + "'.', at most 253)");
    }
    return Optional.empty();
  }
}
