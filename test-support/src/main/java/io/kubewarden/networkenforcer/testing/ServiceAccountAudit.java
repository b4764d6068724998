package io.kubewarden.networkenforcer.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a service account really asked the API server for, read from the kube-apiserver's audit log,
 * against what its RBAC grants, read from the Roles and ClusterRoles bound to it on that API server
 * (the chart's, as installed there). Both as {@code verb group/resource[/subresource]}, so a grant
 * nobody uses and a request nobody granted show up as set differences.
 */
public final class ServiceAccountAudit {
  /** Every request with who sent it and what it named; no bodies. */
  public static final String POLICY =
      """
      apiVersion: audit.k8s.io/v1
      kind: Policy
      omitStages: ["RequestReceived"]
      rules:
      - level: Metadata
      """;

  private static final ObjectMapper JSON = new ObjectMapper();

  private ServiceAccountAudit() {}

  /** The kube-apiserver flags for an audit log at {@code log}, its policy written next to it. */
  public static String[] apiServerArgs(Path log) throws IOException {
    Path policy = log.resolveSibling("audit-policy.yaml");
    Files.writeString(policy, POLICY);
    return new String[] {
      "--audit-policy-file=" + policy, "--audit-log-path=" + log, "--audit-log-mode=blocking"
    };
  }

  /** One request of the service account: its verb, resource and the API server's answer. */
  public record Request(String permission, int code) {}

  public static List<Request> requests(Path log, String namespace, String serviceAccount)
      throws IOException {
    String user = "system:serviceaccount:" + namespace + ":" + serviceAccount;
    List<Request> requests = new ArrayList<>();
    for (String line : Files.readAllLines(log)) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode event = JSON.readTree(line);
      JsonNode ref = event.path("objectRef");
      if (!event.path("user").path("username").asText().equals(user) || ref.isMissingNode()) {
        continue;
      }
      String resource = ref.path("resource").asText();
      if (ref.hasNonNull("subresource")) {
        resource += "/" + ref.path("subresource").asText();
      }
      requests.add(
          new Request(
              permission(event.path("verb").asText(), ref.path("apiGroup").asText(""), resource),
              event.path("responseStatus").path("code").asInt()));
    }
    return requests;
  }

  /** Every (verb, group, resource) the Roles and ClusterRoles bound to the account grant. */
  public static Set<String> granted(
      KubernetesClient admin, String namespace, String serviceAccount) {
    List<RoleRef> roles = new ArrayList<>();
    admin.rbac().clusterRoleBindings().list().getItems().stream()
        .filter(b -> bound(b.getSubjects(), namespace, serviceAccount))
        .forEach(b -> roles.add(b.getRoleRef()));
    List<String> roleNamespaces = new ArrayList<>();
    roles.forEach(r -> roleNamespaces.add(""));
    admin.rbac().roleBindings().inAnyNamespace().list().getItems().stream()
        .filter(b -> bound(b.getSubjects(), namespace, serviceAccount))
        .forEach(
            b -> {
              roles.add(b.getRoleRef());
              roleNamespaces.add(b.getMetadata().getNamespace());
            });
    Set<String> granted = new TreeSet<>();
    for (int i = 0; i < roles.size(); i++) {
      RoleRef ref = roles.get(i);
      List<PolicyRule> rules =
          ref.getKind().equals("ClusterRole")
              ? admin.rbac().clusterRoles().withName(ref.getName()).get().getRules()
              : admin
                  .rbac()
                  .roles()
                  .inNamespace(roleNamespaces.get(i))
                  .withName(ref.getName())
                  .get()
                  .getRules();
      for (PolicyRule rule : rules) {
        for (String group : rule.getApiGroups()) {
          for (String resource : rule.getResources()) {
            for (String verb : rule.getVerbs()) {
              granted.add(permission(verb, group, resource));
            }
          }
        }
      }
    }
    return granted;
  }

  private static boolean bound(List<Subject> subjects, String namespace, String serviceAccount) {
    return subjects != null
        && subjects.stream()
            .anyMatch(
                s ->
                    s.getKind().equals("ServiceAccount")
                        && s.getName().equals(serviceAccount)
                        && namespace.equals(s.getNamespace()));
  }

  private static String permission(String verb, String group, String resource) {
    return verb + " " + group + "/" + resource;
  }
}
