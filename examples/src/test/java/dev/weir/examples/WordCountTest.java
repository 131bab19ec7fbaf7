package dev.weir.examples;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A user's unchanged {@code main}, selecting WeirRunner only through its arguments. */
class WordCountTest {
  @Test
  void mainRunsOnWeirRunner(@TempDir Path dir) throws Exception {
    Path input = dir.resolve("in.txt");
    Files.writeString(input, "the weir and the river\nthe river runs\n", StandardCharsets.UTF_8);
    Path output = dir.resolve("top.txt");
    WordCount.main(new String[] {
      "--runner=WeirRunner", "--sparkMaster=local[2]", "--inputFile=" + input, "--output=" + output, "--top=2"
    });
    List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
    assertThat(lines, containsInAnyOrder("the: 3", "river: 2"));
  }
}
