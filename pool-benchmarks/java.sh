# Sourced by run.sh and ab.sh: sets $java to the JVM that runs the benchmarks. $JAVA_HOME if set,
# else the Temurin 25 JDK if present (the virtual-thread peers need Java 21+), else `java`.
if [[ -n "${JAVA_HOME:-}" ]]; then
  java="$JAVA_HOME/bin/java"
elif [[ -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/java ]]; then
  java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
else
  java=java
fi
