package dev.weir.runner;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** --sparkConf as Beam's option parser hands it over (split on every comma). */
class SparkConfEntriesTest {
  private static Map<String, String> parse(String... args) {
    return Pipelines.options(args).getSparkConf() == null
        ? Map.of()
        : SparkConfEntries.parse(Pipelines.options(args).getSparkConf());
  }

  @Test
  void keyValueEntriesRepeatedOrCommaSeparated() {
    assertThat(
        parse("--sparkConf=spark.a=1,spark.b=2", "--sparkConf=spark.c=x=y"),
        equalTo(Map.of("spark.a", "1", "spark.b", "2", "spark.c", "x=y")));
  }

  @Test
  void aValueWithCommasKeepsThem() {
    assertThat(
        parse("--sparkConf=spark.jars=/a/x.jar,/b/y.jar", "--sparkConf=spark.executor.extraJavaOptions=-Da=1,-Db=2"),
        equalTo(Map.of("spark.jars", "/a/x.jar,/b/y.jar", "spark.executor.extraJavaOptions", "-Da=1,-Db=2")));
  }

  @Test
  void theJsonMapFormTakesAnyValue() {
    assertThat(
        parse("--sparkConf={\"spark.jars\":\"a.jar,b.jar\",\"spark.cores.max\":2}", "--sparkConf=spark.x=1"),
        equalTo(Map.of("spark.jars", "a.jar,b.jar", "spark.cores.max", "2", "spark.x", "1")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"shuffle=8", "=1", "spark.=1"})
  void aMalformedEntryIsNamed(String entry) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse("--sparkConf=" + entry));
    assertThat(e.getMessage(), containsString("--sparkConf entry '" + entry + "'"));
    assertThat(e.getMessage(), containsString("spark.<setting>=<value>"));
  }

  @Test
  void aMalformedJsonMapIsNamed() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> parse("--sparkConf={\"spark.jars\":\"a.jar,b.jar\""));
    assertThat(e.getMessage(), containsString("Invalid --sparkConf JSON map '{\"spark.jars\":\"a.jar,b.jar\"'"));
  }

  @Test
  void aJsonEntryThatIsNoSparkSettingIsNamed() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> parse("--sparkConf={\"jars\":\"a.jar\"}"));
    assertThat(e.getMessage(), containsString("\"jars\""));
  }
}
