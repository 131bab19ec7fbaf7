package dev.weir.nexmark.reference;

import java.util.Map;

/** The reference model of each query, by Beam's query number. */
public final class ReferenceModels {
  private static final Map<Integer, ReferenceModel<?>> MODELS = Map.ofEntries(
      Map.entry(0, new Query0Model()),
      Map.entry(1, new Query1Model()),
      Map.entry(2, new Query2Model()),
      Map.entry(3, new Query3Model()),
      Map.entry(4, new Query4Model()),
      Map.entry(5, new Query5Model()),
      Map.entry(6, new Query6Model()),
      Map.entry(7, new Query7Model()),
      Map.entry(8, new Query8Model()),
      Map.entry(9, new Query9Model()),
      Map.entry(10, new Query10Model()),
      Map.entry(11, new Query11Model()),
      Map.entry(12, new Query12Model()),
      Map.entry(13, new Query13Model()),
      Map.entry(14, new Query14Model()));

  private ReferenceModels() {}

  public static ReferenceModel<?> forQuery(int number) {
    ReferenceModel<?> model = MODELS.get(number);
    if (model == null) {
      throw new IllegalArgumentException("No reference model for query " + number + "; models exist for "
          + new java.util.TreeSet<>(MODELS.keySet()));
    }
    return model;
  }
}
