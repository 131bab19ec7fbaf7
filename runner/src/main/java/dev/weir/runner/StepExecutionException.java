package dev.weir.runner;

import org.apache.beam.sdk.Pipeline;

/**
 * A pipeline failure in user code: the cause is the user's exception, and the message names the
 * Beam step it was thrown in.
 */
final class StepExecutionException extends Pipeline.PipelineExecutionException {
  private final String stepName;

  StepExecutionException(String stepName, Throwable cause) {
    super(cause);
    this.stepName = stepName;
  }

  String stepName() {
    return stepName;
  }

  @Override
  public String getMessage() {
    return "Step '" + stepName + "' failed: " + getCause();
  }
}
