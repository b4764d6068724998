package io.kubewarden.networkenforcer.pipeline.crash;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The log records in the collector's debug exporter output ({@code verbosity: detailed}), as the
 * exporter's text format prints them: a {@code LogRecord #n} header, an {@code EventName:} line and
 * one {@code -> key: Type(value)} line per attribute, ending with {@code Flags:}. A record still
 * being written (no {@code Flags:} yet) is left for the next read.
 */
public final class CollectedEvents {
  static final String UID = "log.record.uid";
  static final String POLICY = "policy.ref.name";
  static final String INSTANCE = "service.instance.id";
  private static final Pattern ATTRIBUTE = Pattern.compile("^\\s*-> ([^:]+): \\w+\\((.*)\\)$");

  /**
   * One exported log record: its event name, id, the policy it names and the writer replica that
   * sent it (its resource's {@code service.instance.id}); null where absent.
   */
  public record Event(String name, String uid, String policy, String instance) {}

  private final List<Event> events;

  private CollectedEvents(List<Event> events) {
    this.events = List.copyOf(events);
  }

  static CollectedEvents parse(List<String> lines) {
    List<Event> events = new ArrayList<>();
    boolean inRecord = false;
    boolean inResource = false;
    String name = null;
    Map<String, String> attributes = new HashMap<>();
    Map<String, String> resource = new HashMap<>();
    for (String line : lines) {
      String l = line.strip();
      if (l.startsWith("LogRecord #")) {
        inRecord = true;
        inResource = false;
        name = null;
        attributes.clear();
      } else if (l.startsWith("ResourceLog #")) {
        inRecord = false;
        inResource = true;
        resource.clear();
      } else if (l.startsWith("ScopeLogs #")) {
        inRecord = false;
        inResource = false;
      } else if (inResource && l.startsWith("->")) {
        Matcher m = ATTRIBUTE.matcher(l);
        if (m.matches()) {
          resource.put(m.group(1), m.group(2));
        }
      } else if (inRecord && l.startsWith("EventName: ")) {
        name = l.substring("EventName: ".length());
      } else if (inRecord && l.startsWith("->")) {
        Matcher m = ATTRIBUTE.matcher(l);
        if (m.matches()) {
          attributes.put(m.group(1), m.group(2));
        }
      } else if (inRecord && l.startsWith("Flags: ")) {
        events.add(
            new Event(name, attributes.get(UID), attributes.get(POLICY), resource.get(INSTANCE)));
        inRecord = false;
      }
    }
    return new CollectedEvents(events);
  }

  /** Records of that event about that policy, repeats included. */
  public long records(String event, String policy) {
    return events.stream().filter(e -> event.equals(e.name()) && policy.equals(e.policy())).count();
  }

  /** Distinct ids of that event about that policy. */
  public long distinct(String event, String policy) {
    return events.stream()
        .filter(e -> event.equals(e.name()) && policy.equals(e.policy()))
        .map(Event::uid)
        .distinct()
        .count();
  }

  /**
   * For each id of that event received more than once, the replicas that sent it, in the order the
   * collector received the copies.
   */
  public Map<String, List<String>> repeatedUidSenders(String event) {
    Map<String, List<String>> senders = new LinkedHashMap<>();
    events.stream()
        .filter(e -> event.equals(e.name()) && e.uid() != null)
        .forEach(e -> senders.computeIfAbsent(e.uid(), k -> new ArrayList<>()).add(e.instance()));
    senders.values().removeIf(s -> s.size() < 2);
    return senders;
  }

  /** Records of that event without an id: none is the writer's contract. */
  public long withoutUid(String event) {
    return events.stream().filter(e -> event.equals(e.name()) && e.uid() == null).count();
  }

  public int size() {
    return events.size();
  }
}
