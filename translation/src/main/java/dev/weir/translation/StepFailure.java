package dev.weir.translation;

/**
 * Thrown on an executor when user code of a step fails: it carries the Beam step name back to
 * the driver through Spark's task failure, with the user's exception as its cause.
 */
public final class StepFailure extends RuntimeException {
  private final String stepName;

  public StepFailure(String stepName, Throwable cause) {
    super("Step '" + stepName + "' failed: " + cause, cause);
    this.stepName = stepName;
  }

  public String stepName() {
    return stepName;
  }

  /** The first {@link StepFailure} in the cause chain of {@code t}, or {@code null}. */
  public static StepFailure find(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof StepFailure) {
        return (StepFailure) c;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return null;
  }
}
