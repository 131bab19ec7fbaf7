package dev.weir.translation.streaming.state;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.in;
import static org.hamcrest.Matchers.lessThan;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.beam.runners.core.StateNamespaces;
import org.apache.beam.runners.core.StateTag;
import org.apache.beam.runners.core.StateTags;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A RocksDB partition's checkpoints: an epoch uploads the SST files the last commit lacked, not
 * the whole state; two manifests and the SST files they name are kept; a partition restored elsewhere from the
 * checkpoint dir holds what was committed.
 */
class RocksDbCheckpointsTest {
  private static final int KEYS = 20_000;
  private static final StateTag<ValueState<byte[]>> VALUE = StateTags.value("value", ByteArrayCoder.of());

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static final KeyedStateStore.Codec CODEC =
      KeyedStateStore.Codec.of((Coder) VarLongCoder.of(), GlobalWindow.Coder.INSTANCE);

  private final RocksDbStateBackend backend = new RocksDbStateBackend(16);
  private final List<String> runs = new ArrayList<>();
  private final Random random = new Random(7);

  @AfterEach
  void drop() {
    runs.forEach(KeyedStateStore::dropRun);
  }

  private String run() {
    String run = UUID.randomUUID().toString();
    runs.add(run);
    return run;
  }

  private static ByteBuffer key(long k) throws Exception {
    return ByteBuffer.wrap(CoderUtils.encodeToByteArray(VarLongCoder.of(), k));
  }

  /** 200 random bytes, which no compression shrinks, tagged with the epoch that wrote them. */
  private byte[] value(long epoch) {
    byte[] bytes = new byte[200];
    random.nextBytes(bytes);
    bytes[0] = (byte) epoch;
    return bytes;
  }

  /** Runs one epoch that writes the given keys; returns the bytes it wrote to the checkpoint dir. */
  private long epoch(String run, StateFiles files, long epoch, List<Long> keys) throws Exception {
    long before = StateFiles.bytesWritten();
    KeyedPartition p = KeyedStateStore.open(backend, run, "step", 0, epoch, epoch - 1, CODEC, files, false);
    for (long k : keys) {
      KeyState s = p.getOrCreate(key(k), k, BoundedWindow.TIMESTAMP_MIN_VALUE);
      s.state.state(StateNamespaces.global(), VALUE).write(value(epoch));
      p.touch(key(k), s, false, false);
    }
    KeyedStateStore.commit(backend, p, epoch);
    return StateFiles.bytesWritten() - before;
  }

  private static List<String> names(Path dir, String glob) throws Exception {
    List<String> names = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      files.map(f -> f.getFileName().toString())
          .filter(n -> !n.startsWith(".") && n.matches(glob))
          .sorted()
          .forEach(names::add);
    }
    return names;
  }

  @Test
  void anEpochUploadsTheFilesTheLastCommitLackedAndOldFilesGo(@TempDir Path dir) throws Exception {
    StateFiles files = new StateFiles(dir.toString(), Configuration::new);
    RocksDbCheckpoints checkpoints = new RocksDbCheckpoints(files, 0);
    String run = run();
    List<Long> all = new ArrayList<>();
    for (long k = 0; k < KEYS; k++) {
      all.add(k);
    }
    long first = epoch(run, files, 1, all);
    // The whole state: at least the values' bytes.
    assertThat(first > KEYS * 200L, equalTo(true));
    List<Long> later = new ArrayList<>();
    for (long e = 2; e <= 9; e++) {
      long uploaded = epoch(run, files, e, List.of(e, e * 100, e * 1000));
      later.add(uploaded);
      // What the epoch uploaded: the SST files the last commit did not have, and its manifest.
      // The others are named by both, under the name they were uploaded with.
      Map<String, RocksDbCheckpoints.SstFile> before = new HashMap<>();
      checkpoints.read(e - 1).ssts().forEach(f -> before.put(f.local(), f));
      long added = 0;
      for (RocksDbCheckpoints.SstFile f : checkpoints.read(e).ssts()) {
        RocksDbCheckpoints.SstFile had = before.get(f.local());
        if (had != null) {
          assertThat("epoch " + e + " " + f.local(), f.uploaded(), equalTo(had.uploaded()));
        } else {
          added += f.size();
        }
      }
      assertThat("epoch " + e + " uploaded " + uploaded + " bytes, " + added + " of them new SST files",
          uploaded - added, lessThan(64L * 1024));
    }
    // RocksDB's compactions rewrite files now and then (and this small state whole), so some
    // epochs upload more; most upload a small file of their changes.
    Collections.sort(later);
    assertThat("epochs 2-9 uploaded " + later + " bytes, the first " + first, later.get(later.size() / 2) * 20, lessThan(first));
    // The manifests of the last two epochs are kept; every SST file kept is named by one of them.
    assertThat(names(dir.resolve("0"), ".*\\.rocks"), contains("0000000000000000008.rocks", "0000000000000000009.rocks"));
    Set<String> named = new HashSet<>();
    for (long e : List.of(8L, 9L)) {
      checkpoints.read(e).ssts().forEach(f -> named.add(f.uploaded()));
    }
    assertThat(names(dir.resolve("0/sst"), ".*\\.sst"), everyItem(in(named)));
    assertThat(names(dir.resolve("0/sst"), ".*\\.sst").size(), equalTo(named.size()));
  }

  /**
   * Two attempts of a task commit the same epoch on two executors (a speculative copy): the one
   * whose manifest the dir kept is the partition's state, and the other executor, which holds its
   * own, goes back to the dir's instead of going on from it.
   */
  @Test
  void anExecutorWhoseCommitAnotherAttemptReplacedReadsTheCommittedOne(@TempDir Path dir) throws Exception {
    StateFiles files = new StateFiles(dir.toString(), Configuration::new);
    String a = run();
    String b = run();
    write(a, files, 1, "a1");
    write(b, files, 2, "b2");
    // a, still at its own epoch 1 (the dir's), commits epoch 2 too, last.
    write(a, files, 2, "a2");
    assertThat(read(b, files, 3), equalTo("a2"));
  }

  private void write(String run, StateFiles files, long epoch, String value) throws Exception {
    KeyedPartition p = KeyedStateStore.open(backend, run, "step", 0, epoch, epoch - 1, CODEC, files, false);
    KeyState s = p.getOrCreate(key(1), 1L, BoundedWindow.TIMESTAMP_MIN_VALUE);
    s.state.state(StateNamespaces.global(), VALUE).write(value.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    p.touch(key(1), s, false, false);
    KeyedStateStore.commit(backend, p, epoch);
  }

  private String read(String run, StateFiles files, long epoch) throws Exception {
    KeyedPartition p = KeyedStateStore.open(backend, run, "step", 0, epoch, epoch - 1, CODEC, files, false);
    return new String(p.get(key(1)).state.state(StateNamespaces.global(), VALUE).read(), java.nio.charset.StandardCharsets.UTF_8);
  }

  @Test
  void aPartitionRestoredFromTheCheckpointDirHoldsWhatWasCommitted(@TempDir Path dir) throws Exception {
    StateFiles files = new StateFiles(dir.toString(), Configuration::new);
    String run = run();
    epoch(run, files, 1, List.of(1L, 2L, 3L));
    epoch(run, files, 2, List.of(2L));
    // Epoch 3 writes key 3 and is never committed.
    KeyedPartition p = KeyedStateStore.open(backend, run, "step", 0, 3, 2, CODEC, files, false);
    KeyState three = p.get(key(3));
    three.state.state(StateNamespaces.global(), VALUE).write(value(3));
    p.touch(key(3), three, false, false);

    // Another executor (another run's folder) takes the partition over at epoch 2.
    KeyedPartition restored = KeyedStateStore.open(backend, run(), "step", 0, 3, 2, CODEC, files, false);
    assertThat(restored.size(), equalTo(3L));
    List<Integer> epochs = new ArrayList<>();
    for (long k = 1; k <= 3; k++) {
      epochs.add((int) restored.get(key(k)).state.state(StateNamespaces.global(), VALUE).read()[0]);
    }
    assertThat(epochs, contains(1, 2, 1));
  }
}
