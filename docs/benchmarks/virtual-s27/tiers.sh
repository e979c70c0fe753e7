#!/bin/bash
# one JVM per run, peers in turn: default tiered, C1 only, pool pre-warmed
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin
CP=/tmp/vx2:/work/main/pool-core/target/classes
for i in 1 2 3 4; do
  for p in pool sem poolw; do echo -n "tiered "; $J/java -cp $CP V $p 1000000 2>&1 | grep -v T0; done
  for p in pool sem; do echo -n "c1only "; $J/java -XX:TieredStopAtLevel=1 -cp $CP V $p 1000000 2>&1 | grep -v T0; done
done
