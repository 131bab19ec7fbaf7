package dev.weir.nexmark.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.window;

import dev.weir.nexmark.NexmarkConfig;
import dev.weir.nexmark.generator.BoundedEventSource;
import dev.weir.nexmark.model.Auction;
import dev.weir.nexmark.model.AuctionCount;
import dev.weir.nexmark.model.AuctionPrice;
import dev.weir.nexmark.model.Bid;
import dev.weir.nexmark.model.Event;
import dev.weir.nexmark.model.Person;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.joda.time.Instant;
import scala.Tuple2;

/**
 * Nexmark queries 0, 1, 2 and 5 written with plain Spark Dataset operations, no Beam: what Spark
 * itself does with the same events, the reference Weir's events/s are held against.
 *
 * <p>The events come from the same generator, split as the Beam source splits them, into a
 * DataFrame with a column per field (a struct per event kind) and
 * the event's timestamp; each query is then Spark's own operators on those columns (Catalyst and
 * code generation, no Beam coder), and its rows become the query's result objects, which are
 * counted and hashed as the launcher does Beam's. A run is timed from reading the events to the
 * last result counted, as a Beam run is from {@code run()} to its end.
 */
public final class NativeSparkQueries {
  /** The queries written here. */
  public static final Set<Integer> QUERIES = Set.of(0, 1, 2, 5);

  private static final StructType PERSON = DataTypes.createStructType(List.of(
      field("id", DataTypes.LongType), field("name", DataTypes.StringType),
      field("emailAddress", DataTypes.StringType), field("creditCard", DataTypes.StringType),
      field("city", DataTypes.StringType), field("state", DataTypes.StringType),
      field("dateTime", DataTypes.LongType), field("extra", DataTypes.StringType)));
  private static final StructType AUCTION = DataTypes.createStructType(List.of(
      field("id", DataTypes.LongType), field("itemName", DataTypes.StringType),
      field("description", DataTypes.StringType), field("initialBid", DataTypes.LongType),
      field("reserve", DataTypes.LongType), field("dateTime", DataTypes.LongType),
      field("expires", DataTypes.LongType), field("seller", DataTypes.LongType),
      field("category", DataTypes.LongType), field("extra", DataTypes.StringType)));
  private static final StructType BID = DataTypes.createStructType(List.of(
      field("auction", DataTypes.LongType), field("bidder", DataTypes.LongType),
      field("price", DataTypes.LongType), field("dateTime", DataTypes.LongType),
      field("extra", DataTypes.StringType)));
  private static final StructType EVENT = DataTypes.createStructType(List.of(
      DataTypes.createStructField("timestamp", DataTypes.LongType, false),
      DataTypes.createStructField("person", PERSON, true),
      DataTypes.createStructField("auction", AUCTION, true),
      DataTypes.createStructField("bid", BID, true)));

  private final SparkSession spark;

  /** On an existing session (the launcher makes one on {@code --nativeSparkMaster}). */
  public NativeSparkQueries(SparkSession spark) {
    this.spark = spark;
  }

  /** A session on {@code master} set up as WeirRunner sets up embedded Spark: one shuffle partition per core. */
  public static SparkSession session(String master) {
    int cores = localCores(master);
    SparkSession.Builder builder = SparkSession.builder().master(master).appName("nexmark-native-spark");
    if (cores > 0) {
      builder.config("spark.sql.shuffle.partitions", String.valueOf(Math.max(2, cores)));
    }
    return builder.getOrCreate();
  }

  /** How many results the query gave, and the sum of their hash codes (order-free, as the launcher's). */
  public record Result(long count, long hash) {}

  /** Runs query {@code query} on the events {@code config} describes. */
  public Result run(int query, NexmarkConfig config) {
    Dataset<Row> events = events(config);
    switch (query) {
      case 0:
        // PASSTHROUGH: every event, through Spark's own row format and back (its copy).
        return summarise(events.toJavaRDD(), new ToEvent());
      case 1:
        // CURRENCY_CONVERSION: every bid, its price in euros.
        return summarise(
            events.where(col("bid").isNotNull())
                .select(col("bid.auction"), col("bid.bidder"), expr("bid.price * 89 div 100").as("price"),
                    col("bid.dateTime"), col("bid.extra"))
                .toJavaRDD(),
            new ToBid());
      case 2:
        // SELECTION: auction and price of the bids on every auctionSkip-th auction.
        return summarise(
            events.where(col("bid").isNotNull().and(col("bid.auction").mod(config.auctionSkip).equalTo(0)))
                .select(col("bid.auction"), col("bid.price"))
                .toJavaRDD(),
            new ToAuctionPrice());
      case 5:
        // HOT_ITEMS: per sliding window, every auction with the most bids, with that number.
        Dataset<Row> counts = events.where(col("bid").isNotNull())
            .groupBy(
                window(expr("timestamp_millis(timestamp)"), config.windowSizeSec + " seconds",
                    config.windowPeriodSec + " seconds").as("window"),
                col("bid.auction").as("auction"))
            .agg(count("*").as("bids"));
        return summarise(
            counts.withColumn("most", max(col("bids")).over(Window.partitionBy(col("window"))))
                .where(col("bids").equalTo(col("most")))
                .select(col("auction"), col("bids"))
                .toJavaRDD(),
            new ToAuctionCount());
      default:
        throw new UnsupportedOperationException("No native Spark version of query " + query + " (there are " + QUERIES + ")");
    }
  }

  /**
   * The events as a DataFrame, generated in the partitions: the Beam source's splits, several
   * to a partition, at most four partitions per core, as WeirRunner reads them (a task per split
   * would cost Spark a scheduling round trip each).
   */
  private Dataset<Row> events(NexmarkConfig config) {
    List<BoundedEventSource> splits = BoundedEventSource.of(config).split(0, null);
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    int partitions = Math.max(1, Math.min(splits.size(), 4 * jsc.defaultParallelism()));
    JavaRDD<Row> rows = jsc.parallelize(splits, partitions).flatMap(new Generate());
    return spark.createDataFrame(rows, EVENT);
  }

  private static <T> Result summarise(JavaRDD<Row> rows, Function<Row, T> toResult) {
    Tuple2<Long, Long> total = rows
        .mapPartitions(partition -> {
          long n = 0;
          long hash = 0;
          while (partition.hasNext()) {
            n++;
            hash += toResult.call(partition.next()).hashCode();
          }
          return List.of(new Tuple2<>(n, hash)).iterator();
        })
        .reduce((a, b) -> new Tuple2<>(a._1() + b._1(), a._2() + b._2()));
    return new Result(total._1(), total._2());
  }

  private static StructField field(String name, org.apache.spark.sql.types.DataType type) {
    return DataTypes.createStructField(name, type, false);
  }

  private static int localCores(String master) {
    if (master.equals("local")) {
      return 1;
    }
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("local\\[(\\d+|\\*)(,\\d+)?]").matcher(master);
    if (!m.matches()) {
      return 0;
    }
    return m.group(1).equals("*") ? Runtime.getRuntime().availableProcessors() : Integer.parseInt(m.group(1));
  }

  /** Reads one split of the Beam source, an event at a time, into rows. */
  private static final class Generate implements FlatMapFunction<BoundedEventSource, Row> {
    @Override
    public Iterator<Row> call(BoundedEventSource split) throws IOException {
      org.apache.beam.sdk.io.BoundedSource.BoundedReader<Event> reader = split.createReader(null);
      boolean first = reader.start();
      return new Iterator<>() {
        boolean more = first;
        boolean closed;

        @Override
        public boolean hasNext() {
          if (!more && !closed) {
            closed = true;
            try {
              reader.close();
            } catch (IOException e) {
              throw new IllegalStateException(e);
            }
          }
          return more;
        }

        @Override
        public Row next() {
          Row row = toRow(reader.getCurrentTimestamp().getMillis(), reader.getCurrent());
          try {
            more = reader.advance();
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
          return row;
        }
      };
    }

    private static Row toRow(long timestamp, Event e) {
      Row person = null;
      Row auction = null;
      Row bid = null;
      if (e.newPerson != null) {
        Person p = e.newPerson;
        person = RowFactory.create(p.id, p.name, p.emailAddress, p.creditCard, p.city, p.state, p.dateTime.getMillis(), p.extra);
      } else if (e.newAuction != null) {
        Auction a = e.newAuction;
        auction = RowFactory.create(a.id, a.itemName, a.description, a.initialBid, a.reserve, a.dateTime.getMillis(),
            a.expires.getMillis(), a.seller, a.category, a.extra);
      } else {
        Bid b = e.bid;
        bid = RowFactory.create(b.auction, b.bidder, b.price, b.dateTime.getMillis(), b.extra);
      }
      return RowFactory.create(timestamp, person, auction, bid);
    }
  }

  private static final class ToEvent implements Function<Row, Event> {
    @Override
    public Event call(Row row) {
      if (!row.isNullAt(1)) {
        Row p = row.getStruct(1);
        return Event.of(new Person(p.getLong(0), p.getString(1), p.getString(2), p.getString(3), p.getString(4),
            p.getString(5), new Instant(p.getLong(6)), p.getString(7)));
      }
      if (!row.isNullAt(2)) {
        Row a = row.getStruct(2);
        return Event.of(new Auction(a.getLong(0), a.getString(1), a.getString(2), a.getLong(3), a.getLong(4),
            new Instant(a.getLong(5)), new Instant(a.getLong(6)), a.getLong(7), a.getLong(8), a.getString(9)));
      }
      return Event.of(new ToBid().call(row.getStruct(3)));
    }
  }

  private static final class ToBid implements Function<Row, Bid> {
    @Override
    public Bid call(Row b) {
      return new Bid(b.getLong(0), b.getLong(1), b.getLong(2), new Instant(b.getLong(3)), b.getString(4));
    }
  }

  private static final class ToAuctionPrice implements Function<Row, AuctionPrice> {
    @Override
    public AuctionPrice call(Row r) {
      return new AuctionPrice(r.getLong(0), r.getLong(1));
    }
  }

  private static final class ToAuctionCount implements Function<Row, AuctionCount> {
    @Override
    public AuctionCount call(Row r) {
      return new AuctionCount(r.getLong(0), r.getLong(1));
    }
  }
}
