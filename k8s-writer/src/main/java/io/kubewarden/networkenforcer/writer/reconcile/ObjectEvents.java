package io.kubewarden.networkenforcer.writer.reconcile;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.kubewarden.networkenforcer.writer.apply.ClusterWriter;
import io.kubewarden.networkenforcer.writer.apply.NotLeaderException;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kubernetes Events on the objects the writer manages ({@code kubectl describe} shows them). Best
 * effort: an Event that cannot be written is logged, never retried.
 */
public final class ObjectEvents {
  private static final Logger LOG = LoggerFactory.getLogger(ObjectEvents.class);
  public static final String SOURCE = "network-enforcer-writer";

  private final ClusterWriter writer;
  private final Clock clock;

  public ObjectEvents(ClusterWriter writer, Clock clock) {
    this.writer = writer;
    this.clock = clock;
  }

  public void warning(HasMetadata object, String reason, String message) {
    String now = DateTimeFormatter.ISO_INSTANT.format(clock.instant());
    Event e =
        new EventBuilder()
            .withNewMetadata()
            .withNamespace(object.getMetadata().getNamespace())
            .withName(
                object.getMetadata().getName()
                    + "."
                    + Long.toHexString(clock.millis())
                    + Long.toHexString(System.nanoTime() & 0xfff))
            .endMetadata()
            .withNewInvolvedObject()
            .withApiVersion(object.getApiVersion())
            .withKind(object.getKind())
            .withNamespace(object.getMetadata().getNamespace())
            .withName(object.getMetadata().getName())
            .withUid(object.getMetadata().getUid())
            .endInvolvedObject()
            .withType("Warning")
            .withReason(reason)
            .withMessage(message.length() > 1024 ? message.substring(0, 1024) : message)
            .withNewSource(SOURCE, null)
            .withReportingComponent(SOURCE)
            .withFirstTimestamp(now)
            .withLastTimestamp(now)
            .withCount(1)
            .build();
    try {
      writer.create(e);
    } catch (NotLeaderException stop) {
      throw stop;
    } catch (RuntimeException failed) {
      LOG.warn(
          "cannot record event {} on {}/{}: {}",
          reason,
          object.getMetadata().getNamespace(),
          object.getMetadata().getName(),
          failed.toString());
    }
  }
}
