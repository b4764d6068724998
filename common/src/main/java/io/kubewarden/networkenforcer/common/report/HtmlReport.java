package io.kubewarden.networkenforcer.common.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Renders a {@link ReportModel} as one self-contained HTML page: the page's script, its styles, the
 * Cytoscape.js graph library (from its WebJar on the classpath) and the model as JSON are all
 * inlined, so the file opens without any network access.
 */
public final class HtmlReport {
  private static final String RESOURCES = "/io/kubewarden/networkenforcer/common/report/";
  private static final String CYTOSCAPE_POM =
      "/META-INF/maven/org.webjars.npm/cytoscape/pom.properties";
  private static final ObjectMapper JSON = new ObjectMapper();

  private HtmlReport() {}

  /** Writes the page to file, creating its folder. */
  public static void write(Path file, ReportModel model) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(file, render(model), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot write the report "
              + file
              + ": "
              + e.getMessage()
              + "; choose a writable --report path",
          e);
    }
  }

  public static String render(ReportModel model) {
    String title =
        (model.live() == null ? "Network Enforcer report: " : "Network Enforcer live view: ")
            + model.source();
    return resource(RESOURCES + "report.html")
        .replace("{{title}}", escapeHtml(title))
        .replace("/*{{style}}*/", resource(RESOURCES + "report.css"))
        .replace("/*{{cytoscape}}*/", cytoscape())
        .replace("/*{{script}}*/", resource(RESOURCES + "report.js"))
        .replace("{{data}}", json(model));
  }

  /** The model as JSON that cannot end the script element it sits in. */
  static String json(ReportModel model) {
    try {
      return JSON.writeValueAsString(model).replace("<", "\\u003c");
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialize the report model", e);
    }
  }

  /** The minified library of the Cytoscape WebJar on the classpath, whatever its version. */
  static String cytoscape() {
    Properties pom = new Properties();
    try (InputStream in = HtmlReport.class.getResourceAsStream(CYTOSCAPE_POM)) {
      if (in == null) {
        throw new IllegalStateException(
            "the cytoscape WebJar is missing from the classpath (" + CYTOSCAPE_POM + ")");
      }
      pom.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String lib =
        resource(
            "/META-INF/resources/webjars/cytoscape/"
                + pom.getProperty("version")
                + "/dist/cytoscape.min.js");
    if (lib.contains("</script")) {
      throw new IllegalStateException("cytoscape.min.js contains </script and cannot be inlined");
    }
    return lib;
  }

  private static String resource(String name) {
    try (InputStream in = HtmlReport.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("resource " + name + " is missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String escapeHtml(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
