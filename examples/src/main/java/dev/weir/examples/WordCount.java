package dev.weir.examples;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.io.TextIO;
import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.options.Validation;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.FlatMapElements;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.Top;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TypeDescriptors;

/**
 * Word count, as any Beam user writes it: nothing here names a runner. Run it with
 * {@code --runner=WeirRunner} (see README.md); it writes the top words to {@code --output} and
 * prints them.
 */
public final class WordCount {

  /** Options of this example. */
  public interface Options extends PipelineOptions {
    @Description("The text file to count words in")
    @Validation.Required
    String getInputFile();

    void setInputFile(String value);

    @Description("Where the top words are written, one 'word: count' per line")
    @Validation.Required
    String getOutput();

    void setOutput(String value);

    @Description("How many words to keep")
    @Default.Integer(10)
    int getTop();

    void setTop(int value);
  }

  private WordCount() {}

  /** Adds the word count of {@code options} to {@code pipeline}. */
  static void build(Pipeline pipeline, Options options) {
    pipeline
        .apply("ReadLines", TextIO.read().from(options.getInputFile()))
        .apply(
            "ExtractWords",
            FlatMapElements.into(TypeDescriptors.strings())
                .via((String line) -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("[^\\p{L}']+"))))
        .apply("DropEmpty", Filter.by((String word) -> !word.isEmpty()))
        .apply("CountWords", Count.perElement())
        .apply("TopWords", Top.of(options.getTop(), new ByCount()))
        .apply(
            "Format",
            FlatMapElements.into(TypeDescriptors.strings())
                .via(
                    (List<KV<String, Long>> top) ->
                        top.stream().map(kv -> kv.getKey() + ": " + kv.getValue()).toList()))
        .apply("WriteTop", TextIO.write().to(options.getOutput()).withoutSharding());
  }

  public static void main(String[] args) throws IOException {
    Options options = PipelineOptionsFactory.fromArgs(args).withValidation().as(Options.class);
    Pipeline pipeline = Pipeline.create(options);
    build(pipeline, options);
    pipeline.run().waitUntilFinish();
    // The output file is unordered; print it by count, highest first.
    List<String> lines = Files.readAllLines(Path.of(options.getOutput()), StandardCharsets.UTF_8);
    lines.sort(
        (a, b) -> Long.compare(count(b), count(a)) != 0 ? Long.compare(count(b), count(a)) : a.compareTo(b));
    System.out.println("Top " + lines.size() + " words of " + options.getInputFile() + ":");
    lines.forEach(line -> System.out.println("  " + line));
  }

  private static long count(String line) {
    return Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
  }

  /** Orders word counts by count, then by word, so that ties are deterministic. */
  static final class ByCount implements java.util.Comparator<KV<String, Long>>, java.io.Serializable {
    @Override
    public int compare(KV<String, Long> a, KV<String, Long> b) {
      int byCount = Long.compare(a.getValue(), b.getValue());
      return byCount != 0 ? byCount : b.getKey().compareTo(a.getKey());
    }
  }
}
