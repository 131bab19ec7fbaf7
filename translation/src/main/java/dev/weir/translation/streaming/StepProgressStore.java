package dev.weir.translation.streaming;

import java.util.HashMap;
import java.util.Map;
import org.apache.beam.sdk.util.CoderUtils;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * What the steps of a streaming run keep on the driver between epochs, by step and {@link
 * StepProgress kind}: each value typed by its kind, and committed with the kind's coder. After a
 * restart, a value is decoded from the commit the first time its step asks for it; what no step
 * asked for yet is committed again as it was.
 */
final class StepProgressStore {
  private final Map<String, Kept<?>> progress = new HashMap<>();
  /** What the commit the run resumed from holds of the steps' progress not asked for since. */
  private final Map<String, byte[]> restored = new HashMap<>();

  /**
   * What step {@code stepName} keeps of this kind: restored from the commit the run resumed from,
   * or the kind's initial value the first time. {@code commitName} names that commit in errors.
   */
  @SuppressWarnings("unchecked")
  <T> T get(String stepName, StepProgress<T> kind, String commitName) {
    String key = kind.key(stepName);
    Kept<?> kept = progress.get(key);
    if (kept != null) {
      if (!kept.kind().equals(kind)) {
        throw new IllegalStateException("Step '" + stepName + "' keeps '" + kind.name() + "' of two kinds");
      }
      return (T) kept.value();
    }
    byte[] committed = restored.remove(key);
    T value;
    if (committed == null) {
      value = kind.initial().get();
    } else {
      try {
        value = CoderUtils.decodeFromByteArray(kind.coder(), committed);
      } catch (Exception e) {
        throw new IllegalStateException(
            "Step '" + stepName + "': could not read its '" + kind.name() + "' from " + commitName, e);
      }
    }
    progress.put(key, new Kept<>(kind, value));
    return value;
  }

  /**
   * What step {@code stepName} keeps of this kind, if it keeps any yet (restored from the commit
   * the run resumed from, or since); null otherwise, without creating it.
   */
  <T> @Nullable T find(String stepName, StepProgress<T> kind, String commitName) {
    String key = kind.key(stepName);
    if (!progress.containsKey(key) && !restored.containsKey(key)) {
      return null;
    }
    return get(stepName, kind, commitName);
  }

  /** Every value, encoded for a commit. */
  Map<String, byte[]> encode() {
    Map<String, byte[]> kept = new HashMap<>(restored);
    for (Map.Entry<String, Kept<?>> p : progress.entrySet()) {
      kept.put(p.getKey(), p.getValue().encode());
    }
    return kept;
  }

  /** Replaces every value with a commit's, decoded when first asked for. */
  void restore(Map<String, byte[]> committed) {
    progress.clear();
    restored.clear();
    restored.putAll(committed);
  }

  /** What a step keeps, with its kind, so that it is committed with the kind's coder. */
  private record Kept<T>(StepProgress<T> kind, T value) {
    byte[] encode() {
      try {
        return CoderUtils.encodeToByteArray(kind.coder(), value);
      } catch (Exception e) {
        throw new IllegalStateException("Could not encode '" + kind.name() + "' for the epoch's commit", e);
      }
    }
  }
}
