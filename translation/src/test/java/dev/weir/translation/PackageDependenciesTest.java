package dev.weir.translation;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The translation module's packages depend one way: the root package (the visitor and what both
 * modes share), {@code metrics} and {@code runtime} name no class of {@code batch} or {@code
 * streaming}, and {@code batch} names none of {@code streaming}. Read from the sources, where an
 * import or a fully qualified name would show it.
 */
class PackageDependenciesTest {
  private static final Path SOURCES = Path.of("src/main/java/dev/weir/translation");

  @Test
  void theSharedPackagesNameNoClassOfEitherMode() throws IOException {
    List<String> found = new ArrayList<>();
    found.addAll(references(SOURCES, false, "dev.weir.translation.batch", "dev.weir.translation.streaming"));
    for (String shared : List.of("metrics", "runtime")) {
      found.addAll(references(SOURCES.resolve(shared), true, "dev.weir.translation.batch", "dev.weir.translation.streaming"));
    }
    assertThat(found, empty());
  }

  @Test
  void batchNamesNoClassOfStreaming() throws IOException {
    assertThat(references(SOURCES.resolve("batch"), true, "dev.weir.translation.streaming"), empty());
  }

  /** Where the Java sources in {@code dir} (and below it, if {@code deep}) name a package of {@code targets}. */
  private static List<String> references(Path dir, boolean deep, String... targets) throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = deep ? Files.walk(dir) : Files.list(dir)) {
      for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
          for (String target : targets) {
            if (lines.get(i).contains(target + ".")) {
              found.add(SOURCES.relativize(file) + ":" + (i + 1) + " names " + target);
            }
          }
        }
      }
    }
    return found;
  }
}
