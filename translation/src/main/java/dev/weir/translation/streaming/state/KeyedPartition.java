package dev.weir.translation.streaming.state;

import java.nio.ByteBuffer;
import java.util.Iterator;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * The keys of one partition of one keyed step, open for one epoch: opened by {@link
 * KeyedStateStore#open}, committed by {@link KeyedStateStore#commit}. Each key is indexed by its
 * next event-time and processing-time timer and by its hold, so an epoch visits only the keys
 * that received elements or have a timer due, and the partition's earliest hold is read off the
 * index: the cost of an epoch follows the keys it touches, not all keys.
 *
 * <p>A key got through {@link #get} or {@link #getOrCreate} is the same object until it is
 * {@link #touch touched}; the epoch hands every key it changed to {@link #touch}.
 */
public interface KeyedPartition {
  /** The key's state, or null if it has none. */
  @Nullable
  KeyState get(ByteBuffer key) throws Exception;

  /** The key's state, new if it had none: its timers start at {@code inputWatermark}. */
  KeyState getOrCreate(ByteBuffer key, Object decodedKey, Instant inputWatermark) throws Exception;

  /**
   * The keys with a timer due at {@code watermark} (event time) or {@code clock} (processing
   * time; null: none), from the index as it is when this is called, in time order, read as they
   * are asked for (all of them may be due at the end of input). A key may come twice, and keys
   * touched since come too: skip those {@link #touchedThisEpoch}.
   */
  Iterator<ByteBuffer> due(Instant watermark, @Nullable Instant clock) throws Exception;

  /** Whether {@link #touch} was called for the key in the epoch the partition is open for. */
  boolean touchedThisEpoch(KeyState key);

  /**
   * Records what the epoch did to a key: drops it if nothing is left, else re-indexes it under
   * its next timers and its hold ({@code timerHolds}: whether pending timers' output timestamps
   * hold, as for a user's DoFn; {@code processingTimersEmit}: whether a processing-time timer
   * alone keeps the key, see {@link KeyState#isEmpty}).
   */
  void touch(ByteBuffer key, KeyState keyState, boolean timerHolds, boolean processingTimersEmit) throws Exception;

  /** The earliest hold of any key, or the end of time. */
  long earliestHold();

  /** The earliest pending event-time timer of any key, or Long.MAX_VALUE. */
  long nextEventTimer();

  /** The earliest pending processing-time (or synchronized processing-time) timer, or Long.MAX_VALUE. */
  long nextProcessingTimer();

  /** How many keys have state or timers. */
  long size();
}
