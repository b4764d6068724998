package io.kubewarden.networkenforcer.processor.observation;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubewarden.networkenforcer.common.flow.FlowRecord;
import io.kubewarden.networkenforcer.common.flow.Protocol;
import io.kubewarden.networkenforcer.common.flow.Provider;
import io.kubewarden.networkenforcer.common.flow.Reporter;
import io.kubewarden.networkenforcer.common.topics.JsonSerde;
import io.kubewarden.networkenforcer.processor.fixtures.BasicFixture;
import io.kubewarden.networkenforcer.processor.fixtures.ProcessorTestDriver;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

/**
 * The number of flow records an observation stands for survives the repartition, in every format.
 */
class ObservationCodecTest {
  private static final FlowRecord FLOW =
      BasicFixture.forwarded(
          Provider.cilium,
          ProcessorTestDriver.START,
          BasicFixture.CLIENT,
          BasicFixture.SERVER,
          Protocol.TCP,
          8080,
          3,
          Reporter.SOURCE);

  private final Serde<Observation> serde = ObservationCodec.serde();

  private Observation roundTrip(Observation o) {
    return serde.deserializer().deserialize("t", serde.serializer().serialize("t", o));
  }

  @Test
  void aCombinedObservationKeepsItsRecordCount() {
    Observation combined = new Observation(FLOW, "demo/Deployment/http-client/Egress", 42);
    Observation back = roundTrip(combined);
    assertThat(back.records()).isEqualTo(42);
    assertThat(back.fallbackTarget()).isEqualTo("demo/Deployment/http-client/Egress");
    // The binary flow record leaves out what no reader uses (pod name, service account).
    assertThat(back.flow().count()).isEqualTo(3);
    assertThat(back.flow().dst().workloadName()).isEqualTo("http-server");
  }

  @Test
  void aSingleObservationStandsForOneRecord() {
    assertThat(roundTrip(Observation.of(FLOW)).records()).isEqualTo(1);
  }

  @Test
  void aJsonObservationOfAnOlderVersionWithoutRecordsStandsForOne() {
    // What older versions wrote on the repartition topic: the observation as JSON, no records
    // field.
    String json =
        "{\"flow\":"
            + new String(new JsonSerde<>(FlowRecord.class).serializer().serialize("t", FLOW))
            + ",\"fallbackTarget\":null}";
    Observation read = serde.deserializer().deserialize("t", json.getBytes(StandardCharsets.UTF_8));
    assertThat(read.records()).isEqualTo(1);
    assertThat(read.flow()).isEqualTo(FLOW);
  }
}
