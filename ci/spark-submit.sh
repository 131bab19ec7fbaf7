#!/usr/bin/env bash
# spark-submit for the SPARK_HOME that ci/spark-home.sh builds from Spark's Maven jars, which
# has no bin/: like Spark's bin/spark-submit, it asks Spark's launcher (org.apache.spark.launcher.
# Main) for the driver's full command (Java options included: the --add-opens that Spark needs on
# Java 17) and runs it. Takes spark-submit's arguments:
#   ci/spark-submit.sh --master spark://HOST:PORT --class MAIN app.jar [app args...]
# SPARK_HOME: the environment's, else the cache ci/spark-home.sh fills.
set -euo pipefail
set +o posix
: "${SPARK_HOME:=${XDG_CACHE_HOME:-$HOME/.cache}/weir/spark-4.2.0-2.13}"
export SPARK_HOME SPARK_SCALA_VERSION=${SPARK_SCALA_VERSION:-2.13}
[ -d "$SPARK_HOME/jars" ] || { echo "spark-submit: no $SPARK_HOME/jars: run ci/spark-home.sh first" >&2; exit 1; }
# The launcher prints its own messages line by line, then an empty line (a NUL) that starts
# the command, whose arguments are NUL-separated; its exit code comes last.
cmd=()
delim=$'\n'
started=false
while IFS= read -d "$delim" -r arg; do
  if $started; then
    cmd+=("$arg")
  elif [ -z "$arg" ]; then
    delim=''
    started=true
  else
    echo "$arg" >&2
  fi
done < <(java -Xmx128m -cp "$SPARK_HOME/jars/*" org.apache.spark.launcher.Main org.apache.spark.deploy.SparkSubmit "$@"
         printf '%d\0' $?)
[ "${#cmd[@]}" -gt 0 ] || { echo "spark-submit: Spark's launcher gave no command" >&2; exit 1; }
rc=${cmd[${#cmd[@]}-1]}
unset 'cmd[${#cmd[@]}-1]'
[ "$rc" -eq 0 ] || { echo "spark-submit: Spark's launcher failed ($rc)" >&2; exit "$rc"; }
exec "${cmd[@]}"
