package dev.weir.nexmark.queries;

import java.util.List;

/** The queries Weir's Nexmark has, in Beam's numbering. */
public final class Queries {
  private Queries() {}

  public static List<NexmarkQuery<?>> all() {
    return List.of(new Query0(), new Query1(), new Query2(), new Query3(), new Query4(), new Query5(), new Query6(), new Query7(), new Query8(),
        new Query9(), new Query10(), new Query11(), new Query12(), new Query13(),
        new Query14());
  }

  public static NexmarkQuery<?> byNumber(int number) {
    for (NexmarkQuery<?> q : all()) {
      if (q.number() == number) {
        return q;
      }
    }
    throw new IllegalArgumentException("Invalid --query=" + number + ": this Nexmark has queries "
        + all().stream().map(q -> String.valueOf(q.number())).toList());
  }
}
