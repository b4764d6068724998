package io.kubewarden.networkenforcer.common.flow;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.TreeSet;

/**
 * Marks a flow end outside the cluster (Hubble {@code reserved:world}, Calico {@code Network} or
 * {@code NetworkSet}): it has an address (when the data plane reports one) and no workload. The DNS
 * names are what the data plane resolved the address to (Hubble {@code destination_names} / {@code
 * source_names}): evidence for a person, never a match criterion (NetworkPolicy has none).
 *
 * @param dnsNames sorted, without duplicates
 * @param network the data plane's name for the address range when it gives no address (Calico
 *     {@code pub}/{@code pvt} or the NetworkSet's name); null otherwise
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record ExternalEndpoint(List<String> dnsNames, String network) {

  public ExternalEndpoint {
    dnsNames = dnsNames == null ? List.of() : List.copyOf(new TreeSet<>(dnsNames));
  }

  public static ExternalEndpoint of(List<String> dnsNames) {
    return new ExternalEndpoint(dnsNames, null);
  }
}
