# Sourced by the benchmark scripts: sets $java to the JVM that runs the benchmarks. $JAVA_HOME if set,
# else the Temurin 25 JDK if present (the virtual-thread peers need Java 21+), else `java`.
if [[ -n "${JAVA_HOME:-}" ]]; then
  java="$JAVA_HOME/bin/java"
elif [[ -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ]]; then
  java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
else
  java=java
fi
# For a script whose rows need virtual threads (matrix17.sh, run.sh: every default peer list has a
# virtual-thread peer): a JDK 17 in $JAVA_HOME would leave them out of the run without a word, or
# stop it at the first (review helper-165, 169).
require_java21() {
  local feature
  feature=$("$java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}' | tr -d ' ')
  if [[ ! "${feature#1.}" =~ ^[0-9]+$ ]] || (( ${feature#1.} < 21 )); then
    echo "This run needs Java 21+ for its virtual-thread rows, but $java is Java ${feature:-unknown}:" \
      "set JAVA_HOME to a JDK 21+" >&2
    exit 1
  fi
}
