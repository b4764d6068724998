package io.kubewarden.networkenforcer.ingest.transport;

import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A server-streaming method with the upstream path and request type whose responses the test writes
 * as raw bytes: real encoded messages, or garbage. Each call waits in a queue for the test.
 */
public final class ScriptedStreamService<Req extends Message> {
  private final LinkedBlockingQueue<StreamObserver<byte[]>> calls = new LinkedBlockingQueue<>();
  private final List<Req> requests = new CopyOnWriteArrayList<>();
  private final ServerServiceDefinition definition;

  public ScriptedStreamService(String serviceName, String fullMethodName, Req requestPrototype) {
    @SuppressWarnings("unchecked")
    MethodDescriptor<Req, byte[]> method =
        MethodDescriptor.<Req, byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
            .setFullMethodName(fullMethodName)
            .setRequestMarshaller(
                ProtoUtils.marshaller((Req) requestPrototype.getDefaultInstanceForType()))
            .setResponseMarshaller(RawBytes.INSTANCE)
            .build();
    definition =
        ServerServiceDefinition.builder(serviceName)
            .addMethod(
                method,
                ServerCalls.asyncServerStreamingCall(
                    (request, observer) -> {
                      requests.add(request);
                      calls.add(observer);
                    }))
            .build();
  }

  public ServerServiceDefinition definition() {
    return definition;
  }

  /** The next call a client opened, waiting up to 30 s. */
  public StreamObserver<byte[]> nextCall() throws InterruptedException {
    StreamObserver<byte[]> call = calls.poll(30, TimeUnit.SECONDS);
    if (call == null) {
      throw new AssertionError("no client call within 30 s");
    }
    return call;
  }

  public List<Req> requests() {
    return requests;
  }
}
