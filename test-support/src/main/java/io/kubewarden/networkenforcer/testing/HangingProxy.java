package io.kubewarden.networkenforcer.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay in front of the broker that can <em>hang</em>: while hung, every connection stays
 * open and new ones are accepted, but no byte is forwarded either way, as when a switch or a
 * conntrack table drops packets silently. Clients see no refusal and no reset, only silence, and
 * must notice through their own timeouts. Connections to a dead upstream (the broker killed) are
 * closed, as the kernel would.
 */
public final class HangingProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final int upstreamPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Object gate = new Object();
  private volatile boolean hung;
  private volatile boolean closed;

  public HangingProxy(int listenPort, int upstreamPort) {
    this.upstreamPort = upstreamPort;
    try {
      listener = new ServerSocket();
      listener.setReuseAddress(true);
      listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), listenPort), 100);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on " + listenPort, e);
    }
    Thread acceptor = new Thread(this::accept, "hanging-proxy-" + listenPort);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public int port() {
    return listener.getLocalPort();
  }

  /** Stops forwarding, closing nothing. */
  public void hang() {
    hung = true;
  }

  /** Forwards again what was held and what follows. */
  public void resume() {
    synchronized (gate) {
      hung = false;
      gate.notifyAll();
    }
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        Socket server;
        try {
          server = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
        } catch (IOException refused) {
          client.close();
          continue;
        }
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(server);
        pump(client, server);
        pump(server, client);
      } catch (IOException e) {
        if (!closed) {
          sleepQuietly();
        }
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  awaitFlowing();
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException | InterruptedException e) {
                // One side is gone: the other learns it as the kernel would tell it.
              } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
              }
            },
            "hanging-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private void awaitFlowing() throws InterruptedException {
    synchronized (gate) {
      while (hung && !closed) {
        gate.wait(1000);
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    resume();
    closeQuietly(listener);
    sockets.forEach(HangingProxy::closeQuietly);
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // closing
    }
  }

  private static void sleepQuietly() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
