package io.kubewarden.networkenforcer.cli.learn;

import io.kubewarden.networkenforcer.ingest.file.CaptureFile;
import io.kubewarden.networkenforcer.ingest.file.CaptureFile.DecodedLine;
import io.kubewarden.networkenforcer.ingest.file.CaptureFormat;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reads a capture on several threads and hands its lines, decoded, to a {@link CaptureFile.Reading}
 * in file order. One thread reads lines into chunks; a pool decodes chunks (JSON and protobuf: most
 * of the cost of a line); the calling thread takes the chunks back in order and does the rest
 * (resolution, de-duplication, the topology), which depends on order. At most {@code inFlight}
 * chunks exist at a time, so memory does not grow with the file.
 */
final class ParallelCaptureRead {
  private static final int CHUNK_LINES = 512;

  private final int decoders;
  private final int inFlight;

  ParallelCaptureRead(int decoders) {
    this.decoders = Math.max(1, decoders);
    this.inFlight = 4 * this.decoders + 2;
  }

  /**
   * Decoders for this machine: every core but the one the ordered stage keeps busy, at least one.
   */
  static ParallelCaptureRead forThisMachine() {
    return new ParallelCaptureRead(Math.max(1, Runtime.getRuntime().availableProcessors() - 1));
  }

  void read(BufferedReader reader, CaptureFormat format, CaptureFile.Reading reading)
      throws IOException, InterruptedException {
    AtomicInteger threadNumber = new AtomicInteger();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            decoders, r -> daemon(r, "learn-decode-" + threadNumber.incrementAndGet()));
    BlockingQueue<CompletableFuture<List<DecodedLine>>> chunks = new ArrayBlockingQueue<>(inFlight);
    CompletableFuture<List<DecodedLine>> end = CompletableFuture.completedFuture(List.of());
    CompletableFuture<Void> readerDone = new CompletableFuture<>();
    Thread lineReader =
        daemon(
            () -> {
              try {
                readChunks(reader, format, pool, chunks);
                readerDone.complete(null);
              } catch (Throwable e) {
                readerDone.completeExceptionally(e);
              } finally {
                putUninterruptibly(chunks, end);
              }
            },
            "learn-read");
    lineReader.start();
    try {
      while (true) {
        CompletableFuture<List<DecodedLine>> chunk = chunks.take();
        if (chunk == end) {
          break;
        }
        for (DecodedLine line : chunk.join()) {
          reading.accept(line);
        }
      }
      readerDone.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      if (e.getCause() instanceof UncheckedIOException io) {
        throw io.getCause();
      }
      throw e;
    } finally {
      lineReader.interrupt();
      pool.shutdownNow();
    }
  }

  private static void readChunks(
      BufferedReader reader,
      CaptureFormat format,
      ExecutorService pool,
      BlockingQueue<CompletableFuture<List<DecodedLine>>> chunks)
      throws IOException, InterruptedException {
    List<String> lines = new ArrayList<>(CHUNK_LINES);
    long[] numbers = new long[CHUNK_LINES];
    long number = 0;
    String line;
    while ((line = reader.readLine()) != null) {
      number++;
      if (line.isBlank()) {
        continue;
      }
      numbers[lines.size()] = number;
      lines.add(line);
      if (lines.size() == CHUNK_LINES) {
        chunks.put(decodeLater(lines, numbers, format, pool));
        lines = new ArrayList<>(CHUNK_LINES);
        numbers = new long[CHUNK_LINES];
      }
    }
    if (!lines.isEmpty()) {
      chunks.put(decodeLater(lines, numbers, format, pool));
    }
  }

  private static CompletableFuture<List<DecodedLine>> decodeLater(
      List<String> lines, long[] numbers, CaptureFormat format, ExecutorService pool) {
    return CompletableFuture.supplyAsync(
        () -> {
          List<DecodedLine> decoded = new ArrayList<>(lines.size());
          for (int i = 0; i < lines.size(); i++) {
            decoded.add(CaptureFile.decode(numbers[i], lines.get(i), format));
          }
          return decoded;
        },
        pool);
  }

  private static void putUninterruptibly(
      BlockingQueue<CompletableFuture<List<DecodedLine>>> queue,
      CompletableFuture<List<DecodedLine>> item) {
    boolean interrupted = false;
    while (true) {
      try {
        queue.put(item);
        break;
      } catch (InterruptedException e) {
        interrupted = true;
        // The consumer stopped: make room so the end marker fits.
        queue.poll();
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
