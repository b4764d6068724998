package io.kubewarden.networkenforcer.common.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crdv2.generator.CRDGenerator;
import io.fabric8.crdv2.generator.CRDPostProcessor;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Generates the CRD manifests of the chart from the Java classes with fabric8's crd-generator v2.
 *
 * <p>Four things the generator does not express are fixed up here, still driven by the classes: the
 * printer columns keep the order of the {@link AdditionalPrinterColumn} annotations (the generator
 * sorts them by JSON path); {@link Size} on a list becomes {@code minItems/maxItems} (the generator
 * applies it to strings only); {@link ItemPattern} checks the list's strings; and the fields the
 * Kubernetes API itself requires inside the NetworkPolicy and LabelSelector models (whose fabric8
 * classes carry no such annotation) are marked required, so a spec the API server would refuse to
 * render is refused on admission.
 */
final class CrdManifests {

  static final List<Class<? extends HasMetadata>> RESOURCES =
      List.of(WorkloadNetworkPolicy.class, WorkloadNetworkPolicyProposal.class);

  static final String UPDATE_COMMAND =
      "./mvnw -pl common test -Dtest=CrdManifestsTest -Dcrds.update=true";

  private static final String HEADER =
      "# Generated from the classes in common/src/main/java/io/kubewarden/"
          + "networkenforcer/common/crd; do not edit.\n# Regenerate with: "
          + UPDATE_COMMAND
          + "\n";

  private static final String OUR_PACKAGE = "io.kubewarden.";

  private CrdManifests() {}

  /** Where the chart keeps the committed manifests, relative to the {@code common} module. */
  static Path committedDir() {
    return Path.of(System.getProperty("basedir", "."))
        .resolve("../charts/network-enforcer/templates/crds")
        .normalize();
  }

  /**
   * File name (e.g. {@code workloadnetworkpolicies.networkenforcer.kubewarden.io-v1.yml}) to YAML
   * text.
   */
  static Map<String, String> generate() {
    Map<String, ByteArrayOutputStream> outputs = new TreeMap<>();
    CRDGenerator.CRDOutput<OutputStream> output =
        new CRDGenerator.CRDOutput<>() {
          @Override
          public OutputStream outputFor(String name) {
            return outputs.computeIfAbsent(name + ".yml", n -> new ByteArrayOutputStream());
          }

          @Override
          public void close() {}
        };
    int generated =
        new CRDGenerator()
            .forCRDVersions("v1")
            .withMinQuotes(true)
            .withParallelGenerationEnabled(false)
            .withPostProcessor(new PostProcessing())
            .withOutput(output)
            .customResourceClasses(RESOURCES)
            .generate();
    if (generated != RESOURCES.size()) {
      throw new IllegalStateException(
          "expected " + RESOURCES.size() + " CRDs, the generator produced " + generated);
    }
    Map<String, String> yaml = new TreeMap<>();
    outputs.forEach(
        (name, bytes) -> yaml.put(name, HEADER + bytes.toString(StandardCharsets.UTF_8)));
    return yaml;
  }

  private static final class PostProcessing implements CRDPostProcessor {
    @Override
    public HasMetadata process(HasMetadata resource, String crdSpecVersion) {
      CustomResourceDefinition crd = (CustomResourceDefinition) resource;
      Class<?> type =
          RESOURCES.stream()
              .filter(c -> c.getSimpleName().equals(crd.getSpec().getNames().getKind()))
              .findFirst()
              .orElseThrow();
      for (CustomResourceDefinitionVersion version : crd.getSpec().getVersions()) {
        orderColumnsAsDeclared(type, version.getAdditionalPrinterColumns());
        Type[] specAndStatus =
            ((ParameterizedType) type.getGenericSuperclass()).getActualTypeArguments();
        Map<String, JSONSchemaProps> root =
            version.getSchema().getOpenAPIV3Schema().getProperties();
        applyListSizes((Class<?>) specAndStatus[0], root.get("spec"));
        applyListSizes((Class<?>) specAndStatus[1], root.get("status"));
        requireWhatKubernetesRequires(version.getSchema().getOpenAPIV3Schema());
      }
      return crd;
    }

    private static void orderColumnsAsDeclared(
        Class<?> type, List<CustomResourceColumnDefinition> columns) {
      List<String> declared =
          Arrays.stream(type.getAnnotationsByType(AdditionalPrinterColumn.class))
              .map(AdditionalPrinterColumn::name)
              .toList();
      columns.sort(
          Comparator.comparingInt(
              c -> {
                int i = declared.indexOf(c.getName());
                return i < 0 ? Integer.MAX_VALUE : i;
              }));
    }

    /**
     * Walks our own classes next to their schema and turns {@link Size} on lists into item counts.
     */
    private static void applyListSizes(Class<?> type, JSONSchemaProps schema) {
      for (Class<?> c = type;
          c != null && c.getName().startsWith(OUR_PACKAGE);
          c = c.getSuperclass()) {
        for (Field field : c.getDeclaredFields()) {
          JSONSchemaProps property =
              schema.getProperties() == null ? null : schema.getProperties().get(field.getName());
          if (property == null) {
            continue;
          }
          Size size = field.getAnnotation(Size.class);
          if (size != null && "array".equals(property.getType())) {
            property.setMaxItems(size.max() == Long.MAX_VALUE ? null : size.max());
            property.setMinItems(size.min() <= 0 ? null : size.min());
          }
          ItemPattern itemPattern = field.getAnnotation(ItemPattern.class);
          if (itemPattern != null
              && "array".equals(property.getType())
              && property.getItems() != null) {
            property.getItems().getSchema().setPattern(itemPattern.value());
          }
          Class<?> element = field.getType();
          JSONSchemaProps elementSchema = property;
          if (List.class.isAssignableFrom(element)
              && field.getGenericType() instanceof ParameterizedType p
              && p.getActualTypeArguments()[0] instanceof Class<?> e
              && property.getItems() != null) {
            element = e;
            elementSchema = property.getItems().getSchema();
          }
          if (element.getName().startsWith(OUR_PACKAGE) && !element.isEnum()) {
            applyListSizes(element, elementSchema);
          }
        }
      }
    }

    /**
     * {@code ipBlock.cidr} and {@code matchExpressions[].key/operator} are required in the
     * Kubernetes OpenAPI; fabric8's model classes do not say so.
     */
    private static void requireWhatKubernetesRequires(JSONSchemaProps schema) {
      if (schema == null) {
        return;
      }
      Map<String, JSONSchemaProps> properties = schema.getProperties();
      if (properties != null) {
        properties.forEach(
            (name, child) -> {
              if (name.equals("ipBlock")) {
                require(child, "cidr");
              } else if (name.equals("matchExpressions") && child.getItems() != null) {
                require(child.getItems().getSchema(), "key", "operator");
              }
              requireWhatKubernetesRequires(child);
            });
      }
      if (schema.getItems() != null) {
        requireWhatKubernetesRequires(schema.getItems().getSchema());
      }
    }

    private static void require(JSONSchemaProps schema, String... fields) {
      Set<String> required =
          new LinkedHashSet<>(schema.getRequired() == null ? List.of() : schema.getRequired());
      for (String field : fields) {
        if (!schema.getProperties().containsKey(field)) {
          throw new IllegalStateException("cannot require missing field " + field);
        }
        required.add(field);
      }
      schema.setRequired(new ArrayList<>(required.stream().sorted().toList()));
    }
  }
}
