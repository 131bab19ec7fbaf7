package dev.weir.translation.batch;

import dev.weir.translation.StepFailure;
import dev.weir.translation.TimePolicies;
import dev.weir.translation.runtime.TimerAdvance;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.beam.runners.core.InMemoryStateInternals;
import org.apache.beam.runners.core.InMemoryTimerInternals;
import org.apache.beam.runners.core.NullSideInputReader;
import org.apache.beam.runners.core.ReduceFnRunner;
import org.apache.beam.runners.core.SystemReduceFn;
import org.apache.beam.runners.core.construction.SerializablePipelineOptions;
import org.apache.beam.runners.core.triggers.ExecutableTriggerStateMachine;
import org.apache.beam.runners.core.triggers.TriggerStateMachines;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.util.construction.TriggerTranslation;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.WindowedValue;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.apache.spark.api.java.function.FlatMapGroupsFunction;
import org.joda.time.Instant;

/**
 * The elements of one key through Beam's own {@link ReduceFnRunner}, so that the user's trigger
 * decides the panes ({@code --windowTriggers=ALLOW}): early panes as data arrives, the on-time
 * pane when the (perfect) watermark passes the end of the window, accumulating or discarding as
 * the windowing strategy says. Processing time follows the {@link TimePolicies}, as for timers.
 */
final class TriggeredGroupAlsoByWindow
    implements FlatMapGroupsFunction<byte[], WindowedValue<KV<Object, Object>>, WindowedValue<KV<Object, Iterable<Object>>>> {
  private final String stepName;
  private final WindowingStrategy<?, BoundedWindow> strategy;
  private final Coder<Object> valueCoder;
  private final SerializablePipelineOptions options;
  private final TimePolicies policies;

  TriggeredGroupAlsoByWindow(
      String stepName,
      WindowingStrategy<?, BoundedWindow> strategy,
      Coder<Object> valueCoder,
      SerializablePipelineOptions options,
      TimePolicies policies) {
    this.stepName = stepName;
    this.strategy = strategy;
    this.valueCoder = valueCoder;
    this.options = options;
    this.policies = policies;
  }

  @Override
  public Iterator<WindowedValue<KV<Object, Iterable<Object>>>> call(
      byte[] keyBytes, Iterator<WindowedValue<KV<Object, Object>>> elements) {
    List<WindowedValue<KV<Object, Iterable<Object>>>> out = new ArrayList<>();
    try {
      WindowedValue<KV<Object, Object>> first = elements.next();
      Object key = first.getValue().getKey();
      InMemoryTimerInternals timers = new InMemoryTimerInternals();
      // Processing-time triggers count their delays from this clock, which starts at the wall clock.
      timers.advanceProcessingTime(Instant.now());
      ReduceFnRunner<Object, Object, Iterable<Object>, BoundedWindow> runner =
          new ReduceFnRunner<>(
              key,
              strategy,
              ExecutableTriggerStateMachine.create(
                  TriggerStateMachines.stateMachineForTrigger(TriggerTranslation.toProto(strategy.getTrigger()))),
              InMemoryStateInternals.forKey(key),
              timers,
              out::add,
              NullSideInputReader.empty(),
              SystemReduceFn.buffering(valueCoder),
              options.get());
      List<WindowedValue<Object>> batch = new ArrayList<>();
      batch.add(first.withValue(first.getValue().getValue()));
      while (elements.hasNext()) {
        WindowedValue<KV<Object, Object>> e = elements.next();
        batch.add(e.withValue(e.getValue().getValue()));
      }
      runner.processElements(batch);
      // The end of input: the clock's last tick, then the end of time.
      new TimerAdvance(policies, TimerAdvance.Batching.TOGETHER)
          .advance(
              TimerAdvance.inMemory(timers),
              due -> {
                runner.onTimers(due);
                runner.persist();
              },
              Instant.now().plus(1),
              BoundedWindow.TIMESTAMP_MAX_VALUE,
              null);
      runner.persist();
    } catch (Exception e) {
      throw new StepFailure(stepName, e);
    }
    return out.iterator();
  }
}
