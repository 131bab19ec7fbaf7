package dev.weir.nexmark.launcher;

import java.time.Instant;

/** One query run as the results history keeps it; {@code runId} names the launch it was part of. */
public record RunRecord(
    String runId,
    Instant time,
    String commit,
    String runner,
    String mode,
    int query,
    long events,
    long runtimeMs,
    double eventsPerSecond,
    long results,
    boolean correct) {}
