package io.kubewarden.networkenforcer.common.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The reduced AuthorizationPolicy model of {@code spec.istio}: a selector and ALLOW rules of source
 * principals and destination ports. No paths, methods, namespaces or ipBlocks.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class IstioPolicy {
  @Required
  @JsonPropertyDescription("Selects the pods the rules protect (the workload's selector).")
  private LabelSelector selector;

  @JsonPropertyDescription("ALLOW rules: a request matching any rule is allowed.")
  private List<Rule> rules = new ArrayList<>();

  public IstioPolicy() {}

  public IstioPolicy(LabelSelector selector, List<Rule> rules) {
    this.selector = selector;
    this.rules = rules;
  }

  public LabelSelector getSelector() {
    return selector;
  }

  public void setSelector(LabelSelector selector) {
    this.selector = selector;
  }

  public List<Rule> getRules() {
    return rules;
  }

  public void setRules(List<Rule> rules) {
    this.rules = rules;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IstioPolicy p
        && Objects.equals(selector, p.selector)
        && Objects.equals(rules, p.rules);
  }

  @Override
  public int hashCode() {
    return Objects.hash(selector, rules);
  }

  /** One ALLOW rule: these sources may reach these operations. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class Rule {
    private List<From> from;
    private List<To> to;

    public Rule() {}

    public Rule(List<From> from, List<To> to) {
      this.from = from;
      this.to = to;
    }

    /** A rule with one source of these principals and one operation on these ports. */
    public static Rule of(List<String> principals, List<String> ports) {
      return new Rule(
          List.of(new From(new Source(principals))),
          ports == null || ports.isEmpty() ? null : List.of(new To(new Operation(ports))));
    }

    public List<From> getFrom() {
      return from;
    }

    public void setFrom(List<From> from) {
      this.from = from;
    }

    public List<To> getTo() {
      return to;
    }

    public void setTo(List<To> to) {
      this.to = to;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Rule r && Objects.equals(from, r.from) && Objects.equals(to, r.to);
    }

    @Override
    public int hashCode() {
      return Objects.hash(from, to);
    }
  }

  /** {@code from[]} entry. */
  public static class From {
    private Source source;

    public From() {}

    public From(Source source) {
      this.source = source;
    }

    public Source getSource() {
      return source;
    }

    public void setSource(Source source) {
      this.source = source;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof From f && Objects.equals(source, f.source);
    }

    @Override
    public int hashCode() {
      return Objects.hashCode(source);
    }
  }

  /** {@code from[].source}: the principals allowed. {@code *} matches any authenticated peer. */
  public static class Source {
    @JsonPropertyDescription(
        "Allowed source principals, e.g. cluster.local/ns/<ns>/sa/<sa>; * matches any.")
    private List<String> principals;

    public Source() {}

    public Source(List<String> principals) {
      this.principals = principals;
    }

    public List<String> getPrincipals() {
      return principals;
    }

    public void setPrincipals(List<String> principals) {
      this.principals = principals;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Source s && Objects.equals(principals, s.principals);
    }

    @Override
    public int hashCode() {
      return Objects.hashCode(principals);
    }
  }

  /** {@code to[]} entry. */
  public static class To {
    private Operation operation;

    public To() {}

    public To(Operation operation) {
      this.operation = operation;
    }

    public Operation getOperation() {
      return operation;
    }

    public void setOperation(Operation operation) {
      this.operation = operation;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof To t && Objects.equals(operation, t.operation);
    }

    @Override
    public int hashCode() {
      return Objects.hashCode(operation);
    }
  }

  /**
   * {@code to[].operation}: destination ports as strings. Single ports only: an Istio
   * AuthorizationPolicy has no port ranges, so a range is refused at admission.
   */
  public static class Operation {
    /** 1 to 65535, without leading zeros. */
    public static final String SINGLE_PORT =
        "^([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$";

    @JsonPropertyDescription(
        "Allowed destination ports as strings, one port number (1-65535) each: an Istio "
            + "AuthorizationPolicy cannot carry a port range such as 8000-9000 or a port name; list the ports one by one.")
    @ItemPattern(SINGLE_PORT)
    private List<String> ports;

    public Operation() {}

    public Operation(List<String> ports) {
      this.ports = ports;
    }

    public List<String> getPorts() {
      return ports;
    }

    public void setPorts(List<String> ports) {
      this.ports = ports;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Operation op && Objects.equals(ports, op.ports);
    }

    @Override
    public int hashCode() {
      return Objects.hashCode(ports);
    }
  }
}
