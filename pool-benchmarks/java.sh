# Sourced by run.sh and ab.sh: sets $java to the JVM that runs the benchmarks. $JAVA_HOME if set,
# else the Temurin 25 JDK if present (the virtual-thread peers need Java 21+), else `java`.
if [[ -n "${JAVA_HOME:-}" ]]; then
  java="$JAVA_HOME/bin/java"
elif [[ -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ]]; then
  java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
else
  java=java
fi
# The virtual-thread peers need Java 21+: a JDK 17 in $JAVA_HOME would leave their rows out of a
# run without a word (review helper-165).
java_feature=$("$java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}' | tr -d ' ')
if [[ ! "${java_feature#1.}" =~ ^[0-9]+$ ]] || (( ${java_feature#1.} < 21 )); then
  echo "The benchmarks need Java 21+ for their virtual-thread peers, but $java is Java ${java_feature:-unknown}:" \
    "set JAVA_HOME to a JDK 21+" >&2
  exit 1
fi
