package dev.weir.nexmark.launcher;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The history of Nexmark runs in a relational database reached through JDBC: an embedded H2
 * file by default, any server database by URL. One table, created when missing; a table from
 * before run ids, heap figures or latencies were recorded gets their columns (its old runs have
 * none).
 */
public final class ResultsHistory implements AutoCloseable {
  private final Connection connection;

  public ResultsHistory(String jdbcUrl) throws SQLException {
    this.connection = DriverManager.getConnection(jdbcUrl);
    try (Statement s = connection.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS nexmark_runs ("
          + "run_time TIMESTAMP NOT NULL, run_commit VARCHAR(64) NOT NULL, runner VARCHAR(128) NOT NULL, "
          + "mode VARCHAR(16) NOT NULL, query INT NOT NULL, events BIGINT NOT NULL, runtime_ms BIGINT NOT NULL, "
          + "events_per_sec DOUBLE PRECISION NOT NULL, results BIGINT NOT NULL, correct BOOLEAN NOT NULL, "
          + "run_id VARCHAR(64), peak_heap_mb BIGINT, live_heap_mb BIGINT, latency_p50_ms BIGINT, latency_p99_ms BIGINT)");
    }
    addIfMissing("run_id", "VARCHAR(64)");
    addIfMissing("peak_heap_mb", "BIGINT");
    addIfMissing("live_heap_mb", "BIGINT");
    addIfMissing("latency_p50_ms", "BIGINT");
    addIfMissing("latency_p99_ms", "BIGINT");
  }

  private void addIfMissing(String column, String type) throws SQLException {
    if (!hasColumn(column)) {
      try (Statement s = connection.createStatement()) {
        s.execute("ALTER TABLE nexmark_runs ADD COLUMN " + column + " " + type);
      }
    }
  }

  private boolean hasColumn(String column) {
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("SELECT " + column + " FROM nexmark_runs WHERE 1 = 0")) {
      return true;
    } catch (SQLException e) {
      return false;
    }
  }

  public void append(RunRecord r) throws SQLException {
    try (PreparedStatement s = connection.prepareStatement(
        "INSERT INTO nexmark_runs (run_time, run_commit, runner, mode, query, events, runtime_ms, "
            + "events_per_sec, results, correct, run_id, peak_heap_mb, live_heap_mb, latency_p50_ms, latency_p99_ms) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      s.setTimestamp(1, Timestamp.from(r.time()));
      s.setString(2, r.commit());
      s.setString(3, r.runner());
      s.setString(4, r.mode());
      s.setInt(5, r.query());
      s.setLong(6, r.events());
      s.setLong(7, r.runtimeMs());
      s.setDouble(8, r.eventsPerSecond());
      s.setLong(9, r.results());
      s.setBoolean(10, r.correct());
      s.setString(11, r.runId());
      s.setLong(12, r.peakHeapMb());
      s.setLong(13, r.liveHeapMb());
      s.setLong(14, r.latencyP50Ms());
      s.setLong(15, r.latencyP99Ms());
      s.executeUpdate();
    }
  }

  /** The latest earlier run of the same runner, mode, query and size: the baseline. */
  public Optional<RunRecord> baseline(String runner, String mode, int query, long events) throws SQLException {
    try (PreparedStatement s = connection.prepareStatement(
        "SELECT * FROM nexmark_runs WHERE runner = ? AND mode = ? AND query = ? AND events = ? "
            + "ORDER BY run_time DESC LIMIT 1")) {
      s.setString(1, runner);
      s.setString(2, mode);
      s.setInt(3, query);
      s.setLong(4, events);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    }
  }

  /** How many runs the history holds of this run id, runner and mode. */
  public long count(String runId, String runner, String mode) throws SQLException {
    try (PreparedStatement s = connection.prepareStatement(
        "SELECT COUNT(*) FROM nexmark_runs WHERE run_id = ? AND runner = ? AND mode = ?")) {
      s.setString(1, runId);
      s.setString(2, runner);
      s.setString(3, mode);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** Every run, oldest first. */
  public List<RunRecord> all() throws SQLException {
    List<RunRecord> runs = new ArrayList<>();
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("SELECT * FROM nexmark_runs ORDER BY run_time, query")) {
      while (rs.next()) {
        runs.add(read(rs));
      }
    }
    return runs;
  }

  private static RunRecord read(ResultSet rs) throws SQLException {
    String runId = rs.getString("run_id");
    return new RunRecord(
        runId == null ? "" : runId,
        rs.getTimestamp("run_time").toInstant(),
        rs.getString("run_commit"),
        rs.getString("runner"),
        rs.getString("mode"),
        rs.getInt("query"),
        rs.getLong("events"),
        rs.getLong("runtime_ms"),
        rs.getDouble("events_per_sec"),
        rs.getLong("results"),
        rs.getBoolean("correct"),
        orUnknown(rs, "peak_heap_mb"),
        orUnknown(rs, "live_heap_mb"),
        orUnknown(rs, "latency_p50_ms"),
        orUnknown(rs, "latency_p99_ms"));
  }

  /** A figure of a run, or -1 for a run recorded before the figure was. */
  private static long orUnknown(ResultSet rs, String column) throws SQLException {
    long value = rs.getLong(column);
    return rs.wasNull() ? -1 : value;
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
