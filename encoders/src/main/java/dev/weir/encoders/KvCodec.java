package dev.weir.encoders;

import org.apache.beam.sdk.values.KV;
import org.apache.spark.sql.catalyst.encoders.Codec;

/** {@code KV} to and from its {@link KvRow} struct; the fields' own encoders do the rest. */
final class KvCodec implements Codec<KV<Object, Object>, KvRow> {
  @Override
  public KvRow encode(KV<Object, Object> kv) {
    KvRow row = new KvRow();
    row.setKey(kv.getKey());
    row.setValue(kv.getValue());
    return row;
  }

  @Override
  public KV<Object, Object> decode(KvRow row) {
    return KV.of(row.getKey(), row.getValue());
  }
}
