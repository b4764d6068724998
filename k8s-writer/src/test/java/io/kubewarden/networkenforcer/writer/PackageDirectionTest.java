package io.kubewarden.networkenforcer.writer;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The allowed direction between the writer's packages, top (wiring) to bottom (the API client). A
 * package uses only those listed for it, so a reader can start at the bottom and never meet a
 * cycle. A new package must be placed here.
 */
class PackageDirectionTest {
  private static final String ROOT = "io.kubewarden.networkenforcer.writer";

  /** Each package and the writer packages it may use (besides itself). */
  private static final Map<String, Set<String>> MAY_USE = new LinkedHashMap<>();

  static {
    // Wiring: WriterService, LeaderSession, WriterConfig. Nothing uses it.
    MAY_USE.put("", Set.of("view", "leadership", "proposals", "policies", "promotion", "status", "rendering",
        "telemetry", "reconcile", "apply", "cache", "deadletter", "observations", "conditions", "events"));
    MAY_USE.put("view", Set.of("cache"));
    MAY_USE.put("leadership", Set.of("apply"));
    // Informer events as keys on a queue: named filters, owner keys.
    MAY_USE.put("events", Set.of("reconcile", "rendering"));
    // Reconcilers: proposals reset learning through the policies topic, never the other way.
    MAY_USE.put("proposals", Set.of("policies", "promotion", "reconcile", "rendering", "apply", "cache",
        "deadletter", "conditions"));
    MAY_USE.put("policies", Set.of("status", "rendering", "reconcile", "apply", "cache", "conditions"));
    MAY_USE.put("promotion", Set.of("apply", "cache", "conditions"));
    // Steps of a reconcile.
    MAY_USE.put("status", Set.of("rendering", "telemetry", "reconcile", "apply", "cache", "deadletter",
        "observations", "conditions"));
    MAY_USE.put("rendering", Set.of("apply", "conditions"));
    MAY_USE.put("telemetry", Set.of("observations"));
    // The keyed queue and its controllers.
    MAY_USE.put("reconcile", Set.of("apply"));
    // The bottom: the guarded API client and its refusal classes, the caches, dead letters, records.
    MAY_USE.put("apply", Set.of());
    MAY_USE.put("cache", Set.of());
    MAY_USE.put("deadletter", Set.of());
    MAY_USE.put("observations", Set.of());
    MAY_USE.put("conditions", Set.of());
  }

  private static final JavaClasses CLASSES = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(ROOT);

  private static String qualified(String pkg) {
    return pkg.isEmpty() ? ROOT : ROOT + "." + pkg;
  }

  @Test
  void everyPackageHasAPlace() {
    Set<String> packages = CLASSES.stream().map(JavaClass::getPackageName)
        .map(p -> p.equals(ROOT) ? "" : p.substring(ROOT.length() + 1)).collect(Collectors.toCollection(TreeSet::new));
    assertThat(MAY_USE.keySet()).containsAll(packages);
  }

  @Test
  void packagesFormNoCycle() {
    slices().matching(ROOT + ".(*)..").should().beFreeOfCycles().check(CLASSES);
  }

  @TestFactory
  Stream<DynamicTest> eachPackageUsesOnlyThePackagesBelowIt() {
    return MAY_USE.entrySet().stream().map(e -> DynamicTest.dynamicTest(
        (e.getKey().isEmpty() ? "(root)" : e.getKey()) + " uses only " + new TreeSet<>(e.getValue()), () -> {
          List<String> forbidden = MAY_USE.keySet().stream()
              .filter(p -> !p.equals(e.getKey()) && !e.getValue().contains(p))
              .map(PackageDirectionTest::qualified).toList();
          noClasses().that().resideInAPackage(qualified(e.getKey()))
              .should().dependOnClassesThat().resideInAnyPackage(forbidden.toArray(String[]::new))
              .allowEmptyShould(true).check(CLASSES);
        }));
  }
}
