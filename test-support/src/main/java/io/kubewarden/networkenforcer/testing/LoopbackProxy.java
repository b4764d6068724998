package io.kubewarden.networkenforcer.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on loopback in front of the API server, so a test can cut one client off (a network
 * partition: open connections drop, new ones are refused) while the API server and everyone else
 * carry on. TLS passes through untouched; the serving certificate is valid for 127.0.0.1.
 */
public final class LoopbackProxy implements AutoCloseable {

  private final ServerSocket listener;
  private final InetSocketAddress target;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Thread acceptor;
  private volatile boolean cut;
  private volatile boolean partitioned;

  private LoopbackProxy(InetSocketAddress target) {
    this.target = target;
    try {
      listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on loopback", e);
    }
    acceptor = new Thread(this::accept, "loopback-proxy-" + listener.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** A relay to {@code https://host:port} (the API server URL). */
  public static LoopbackProxy to(String url) {
    URI uri = URI.create(url);
    return new LoopbackProxy(new InetSocketAddress(uri.getHost(), uri.getPort()));
  }

  /** The URL clients use instead of the API server's. */
  public String url() {
    return "https://127.0.0.1:" + listener.getLocalPort();
  }

  /** Drops every connection and refuses new ones, for good. */
  public void cut() {
    synchronized (sockets) {
      cut = true;
      closeQuietly(listener);
      sockets.forEach(LoopbackProxy::closeQuietly);
    }
  }

  /** Drops every connection and refuses new ones until {@link #heal()}: a network partition. */
  public void partition() {
    synchronized (sockets) {
      partitioned = true;
      sockets.forEach(LoopbackProxy::closeQuietly);
      sockets.clear();
    }
  }

  /** Lets connections through again after {@link #partition()}. */
  public void heal() {
    partitioned = false;
  }

  private void accept() {
    while (!cut) {
      Socket client = null;
      Socket server = null;
      try {
        client = listener.accept();
        server = new Socket(target.getAddress(), target.getPort());
      } catch (IOException e) {
        closeQuietly(client);
        if (cut) {
          return;
        }
        continue;
      }
      // A connection accepted while cutting must not slip through.
      synchronized (sockets) {
        if (cut) {
          closeQuietly(client);
          closeQuietly(server);
          return;
        }
        if (partitioned) {
          closeQuietly(client);
          closeQuietly(server);
          continue;
        }
        sockets.add(client);
        sockets.add(server);
      }
      pump(client, server);
      pump(server, client);
    }
  }

  private void pump(Socket from, Socket to) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException closed) {
                // One side went away: close both, like a dropped connection.
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "loopback-proxy-pump");
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(AutoCloseable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception ignored) {
      // Already closed.
    }
  }

  @Override
  public void close() {
    cut();
  }
}
