package io.kubewarden.networkenforcer.testing;

import com.tngtech.archunit.ArchConfiguration;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The allowed direction between the packages of one module, checked against its compiled classes.
 *
 * <p>A module names its packages in layers, lowest first: a class may use its own package and the
 * packages of lower layers only, so the packages cannot form a cycle and each new dependency has to
 * go the named way. Every package of the module must be named, so a new package gets a place too.
 * Package names are relative to the module's root package ("" is the root package itself); a
 * package's subpackages belong to it.
 */
public final class PackageLayers {

  private final String root;
  private final List<List<String>> layers = new ArrayList<>();

  private PackageLayers(String root) {
    this.root = root;
  }

  /** The module whose classes live below {@code rootPackage}. */
  public static PackageLayers of(String rootPackage) {
    return new PackageLayers(rootPackage);
  }

  /** The next layer up: these packages may use each layer declared before, not each other. */
  public PackageLayers layer(String... packages) {
    layers.add(List.of(packages));
    return this;
  }

  /**
   * Every class edge that breaks the layering, and every package no layer names; empty when sound.
   */
  public List<String> violations() {
    // The module's own compiled classes (tests run in the module's directory): scanning the whole
    // class path for the package would read every jar of it.
    // Only names of referenced classes matter: don't read the classes they come from.
    ArchConfiguration.get().setResolveMissingDependenciesFromClassPath(false);
    JavaClasses classes = new ClassFileImporter().importPath(Path.of("target", "classes"));
    Map<String, Integer> levels = levels();
    Set<String> problems = new TreeSet<>();
    for (JavaClass c : classes) {
      if (!inModule(c.getPackageName())) {
        continue;
      }
      String from = named(c.getPackageName(), levels);
      if (from == null) {
        problems.add("package " + c.getPackageName() + " is in no layer: name it in the test");
        continue;
      }
      for (Dependency d : c.getDirectDependenciesFromSelf()) {
        String target = d.getTargetClass().getPackageName();
        if (!inModule(target)) {
          continue;
        }
        String to = named(target, levels);
        if (to == null || to.equals(from)) {
          continue;
        }
        if (levels.get(to) >= levels.get(from)) {
          problems.add(
              display(from)
                  + " -> "
                  + display(to)
                  + " ("
                  + c.getName()
                  + " uses "
                  + d.getTargetClass().getName()
                  + ")");
        }
      }
    }
    if (classes.isEmpty()) {
      problems.add("no classes below " + root + ": is the module compiled?");
    }
    return List.copyOf(problems);
  }

  private Map<String, Integer> levels() {
    Map<String, Integer> levels = new LinkedHashMap<>();
    for (int i = 0; i < layers.size(); i++) {
      for (String p : layers.get(i)) {
        if (levels.put(p, i) != null) {
          throw new IllegalArgumentException("package " + display(p) + " named twice");
        }
      }
    }
    return levels;
  }

  private boolean inModule(String pkg) {
    return pkg.equals(root) || pkg.startsWith(root + ".");
  }

  /**
   * The named package {@code pkg} belongs to: the longest name that is it or one of its parents.
   */
  private String named(String pkg, Map<String, Integer> levels) {
    String relative =
        pkg.equals(root)
            ? ""
            : pkg.startsWith(root + ".") ? pkg.substring(root.length() + 1) : null;
    if (relative == null) {
      return null;
    }
    String best = null;
    for (String p : levels.keySet()) {
      boolean covers = p.equals(relative) || (!p.isEmpty() && relative.startsWith(p + "."));
      if (covers && (best == null || p.length() > best.length())) {
        best = p;
      }
    }
    return best;
  }

  private String display(String relative) {
    return relative.isEmpty() ? root : relative;
  }
}
