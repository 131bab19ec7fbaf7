#!/usr/bin/env bash
# Builds a SPARK_HOME from Spark's Maven jars (there is no Spark download on CI):
#   ci/spark-home.sh [DIR]   # default ~/.cache/weir/spark-4.2.0-2.13; prints DIR
# DIR/jars holds spark-sql_2.13 and spark-launcher_2.13 with their runtime
# dependencies, which is all a standalone Master and Worker need: the Worker
# builds each executor's command with Spark's launcher library, which reads
# only SPARK_HOME/jars (classpath "jars/*") and, if present, conf/ (java-opts,
# spark-defaults.conf, log4j2.properties). The launcher also wants the Scala
# version, from SPARK_SCALA_VERSION=2.13 since this is no source build; no
# RELEASE file, bin/ or sbin/ is read on the executor path.
# A complete DIR is reused; an incomplete or older one is rebuilt. Runs Maven
# under the shared /tmp/weir-mvn.lock, so do not call it from inside a Maven
# build (a test): build the SPARK_HOME before.
set -euo pipefail

SPARK_VERSION=4.2.0
SCALA_BINARY=2.13
DIR=${1:-${WEIR_SPARK_HOME:-$HOME/.cache/weir/spark-$SPARK_VERSION-$SCALA_BINARY}}
LOCK_WAIT_SECS=${WEIR_MVN_LOCK_WAIT_SECS:-1800}
MVN_TIMEOUT_SECS=${WEIR_SPARK_HOME_MVN_TIMEOUT_SECS:-1800}
# What a complete DIR was built from; a different line means rebuild.
SPEC="spark-sql_$SCALA_BINARY:$SPARK_VERSION spark-launcher_$SCALA_BINARY:$SPARK_VERSION"
MARKER=weir-spark-home.txt

complete() { [ -f "$DIR/$MARKER" ] && [ "$(head -n 1 "$DIR/$MARKER")" = "$SPEC" ]; }

if complete; then echo "$DIR"; exit 0; fi

mkdir -p "$(dirname "$DIR")"
DIR=$(cd "$(dirname "$DIR")" && pwd)/$(basename "$DIR")
# Two callers building the same DIR at once: the second waits, then reuses.
exec 9>"$DIR.lock"
flock -w "$LOCK_WAIT_SECS" 9 || { echo "spark-home: $DIR.lock busy for ${LOCK_WAIT_SECS}s" >&2; exit 1; }
if complete; then echo "$DIR"; exit 0; fi

work=$(mktemp -d "$DIR.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
# A throw-away project whose runtime classpath is the Spark distribution's
# jars/; the plugin version is pinned so the result does not drift.
cat >"$work/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.weir.ci</groupId>
  <artifactId>spark-home</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.spark</groupId>
      <artifactId>spark-sql_$SCALA_BINARY</artifactId>
      <version>$SPARK_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.apache.spark</groupId>
      <artifactId>spark-launcher_$SCALA_BINARY</artifactId>
      <version>$SPARK_VERSION</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-dependency-plugin</artifactId>
        <version>3.8.1</version>
      </plugin>
    </plugins>
  </build>
</project>
EOF

echo "spark-home: building $DIR from Maven (spark-sql_$SCALA_BINARY:$SPARK_VERSION)" >&2
mkdir -p "$work/home/jars"
if ! flock -w "$LOCK_WAIT_SECS" /tmp/weir-mvn.lock timeout "$MVN_TIMEOUT_SECS" \
    mvn -B -ntp -q -f "$work/pom.xml" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$work/home/jars" >"$work/mvn.log" 2>&1; then
  echo "spark-home: Maven failed (or waited over ${LOCK_WAIT_SECS}s for /tmp/weir-mvn.lock)" >&2
  tail -n 40 "$work/mvn.log" >&2
  exit 1
fi
for jar in spark-core spark-sql spark-launcher; do
  [ -f "$work/home/jars/${jar}_$SCALA_BINARY-$SPARK_VERSION.jar" ] \
    || { echo "spark-home: ${jar}_$SCALA_BINARY-$SPARK_VERSION.jar missing" >&2; exit 1; }
done
{ echo "$SPEC"; echo "built $(date -u +%FT%TZ) from Maven; SPARK_SCALA_VERSION=$SCALA_BINARY"; } \
  >"$work/home/$MARKER"

# Swap in whole, so a reader never sees a half-copied jars/.
rm -rf "$DIR"
mv "$work/home" "$DIR"
echo "spark-home: $(ls "$DIR/jars" | wc -l) jars, $(du -sh "$DIR" | cut -f1)" >&2
echo "$DIR"
