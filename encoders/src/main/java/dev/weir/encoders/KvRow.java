package dev.weir.encoders;

/**
 * The Spark-side shape of a Beam {@code KV}: a struct of {@code key} and {@code value} so that
 * Catalyst sees native key columns when the key coder is a well-known one. Public with a
 * no-argument constructor and accessors only because Spark's bean encoder needs them.
 */
public final class KvRow {
  private Object key;
  private Object value;

  public Object getKey() {
    return key;
  }

  public void setKey(Object key) {
    this.key = key;
  }

  public Object getValue() {
    return value;
  }

  public void setValue(Object value) {
    this.value = value;
  }
}
