package dev.weir.nexmark.reference;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import dev.weir.nexmark.queries.NexmarkQuery;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The models and the pipelines share no code: no class of one package refers to a class of the
 * other. A class's references are named in its constant pool as {@code dev/weir/nexmark/...}
 * strings, so the compiled classes are searched for the other package's name.
 */
class ReferenceIndependenceTest {
  @Test
  void modelsReferToNoPipelineClass() throws Exception {
    assertThat(classesReferringTo(ReferenceModel.class, "dev/weir/nexmark/queries/"), is(empty()));
  }

  @Test
  void pipelinesReferToNoModelClass() throws Exception {
    assertThat(classesReferringTo(NexmarkQuery.class, "dev/weir/nexmark/reference/"), is(empty()));
  }

  /** The classes of {@code member}'s package whose bytecode names {@code otherPackage}. */
  private static List<String> classesReferringTo(Class<?> member, String otherPackage) throws Exception {
    Path classes = Path.of(member.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path dir = classes.resolve(member.getPackageName().replace('.', '/'));
    List<Path> files;
    try (Stream<Path> listed = Files.list(dir)) {
      files = listed.filter(f -> f.toString().endsWith(".class")).toList();
    }
    assertThat("compiled classes found in " + dir, files.size(), greaterThan(1));
    List<String> offending = new ArrayList<>();
    for (Path f : files) {
      if (new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1).contains(otherPackage)) {
        offending.add(f.getFileName().toString());
      }
    }
    return offending;
  }
}
