#!/usr/bin/env bash
# A fleet in one command, all on 127.0.0.1: ZooKeeper (the config engine), three replicas of the
# sample app that take their pools from it, a Spring Boot Admin server with the Pools view, and
# Prometheus (Debian's package, unpacked under target/, never installed) with the shipped alert
# rules, scraping the replicas. Prints the URLs; a change in ZooKeeper retunes all three.
#
#   bash fleet/run.sh                 # run for --duration (default 600 s), or until Ctrl+C
#   bash fleet/run.sh --duration 120
#   bash fleet/run.sh --demo          # one change in ZooKeeper; check the three replicas, SBA and
#                                     # Prometheus all see it; exit 0 if so, 1 if not
#
# Needs the jars of `./mvnw -pl pool-fleet-demo -am package -DskipTests` (built when missing), Java
# 17+, curl, and for Prometheus `apt-get download prometheus` (run `apt-get update` once on a
# fresh machine). Everything it starts is stopped when it exits, however it exits; its files and
# logs are under target/fleet/.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

duration=600
demo=false
while [ $# -gt 0 ]; do
  case "$1" in
    --demo) demo=true ;;
    --duration)
      [ $# -ge 2 ] || { echo "--duration needs a number of seconds" >&2; exit 2; }
      duration="$2"; shift ;;
    --duration=*) duration="${1#*=}" ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "unknown argument '$1': use --demo or --duration SECONDS" >&2; exit 2 ;;
  esac
  shift
done
case "$duration" in
  ''|*[!0-9]*) echo "--duration must be a number of seconds, but was '$duration'" >&2; exit 2 ;;
esac

version=0.1.0-SNAPSHOT
sample_jar="$root/sample-app/target/sample-app-$version.jar"
admin_jar="$root/pool-fleet-demo/target/pool-fleet-demo-$version.jar"
replica_lib="$root/pool-fleet-demo/target/replica-lib"
zookeeper_lib="$root/pool-fleet-demo/target/zookeeper-lib"
run="$root/target/fleet"
app=workerpool-sample
ops_password="fleet-ops-$RANDOM$RANDOM"
node="/config/$app/pools/instances/mail/capacity"
# Not the sample's application.yml value (8): a replica that did not read ZooKeeper shows 8, and the
# checks below wait for the seeded value.
seeded=7

log() { printf '== %s\n' "$*"; }

# One fleet per checkout: a second one would delete the first one's ZooKeeper data, databases
# and logs under target/fleet/, and a rebuild would replace the jars its replicas run from. Taken
# before anything is built or downloaded. The lock is released when this script exits.
mkdir -p "$root/target"
exec 9>"$root/target/fleet.lock"
if ! flock -n 9; then
  echo "another fleet/run.sh of this checkout is running (target/fleet.lock); stop it first" >&2
  exit 1
fi

# --- what it needs -------------------------------------------------------------------------------
# Built when missing, or older than a source or pom of the modules they are made of (a git pull).
stale() {
  [ -n "$(find "$root"/pom.xml "$root"/pool-core "$root"/pool-adaptive "$root"/pool-spring-boot-autoconfigure \
    "$root"/pool-spring-boot-starter "$root"/pool-spring-boot-admin "$root"/sample-app "$root"/pool-fleet-demo \
    -newer "$1" -type f \( -path '*/src/main/*' -o -name pom.xml \) 2>/dev/null | head -1)" ]
}
if [ ! -f "$sample_jar" ] || [ ! -f "$admin_jar" ] || [ ! -d "$replica_lib" ] || [ ! -d "$zookeeper_lib" ] || stale "$sample_jar" \
    || stale "$admin_jar"; then
  log "building the jars: ./mvnw -q -pl pool-fleet-demo -am package -DskipTests"
  # copy-dependencies adds, never removes: an old version of a jar would stay on loader.path.
  rm -rf "$replica_lib" "$zookeeper_lib"
  ./mvnw -q -pl pool-fleet-demo -am package -DskipTests
fi
tools="$root/target/prometheus-tools"
prometheus="$(command -v prometheus || true)"
if [ -z "$prometheus" ]; then
  prometheus="$tools/usr/bin/prometheus"
  if [ ! -x "$prometheus" ]; then
    log "prometheus: downloading Debian's prometheus package into $tools"
    mkdir -p "$tools/deb"
    rm -f "$tools"/deb/prometheus_*.deb
    if ! (cd "$tools/deb" && apt-get download prometheus >/dev/null); then
      echo "apt-get download prometheus failed: on a fresh Debian or Ubuntu machine run 'sudo apt-get update'" \
        "first; elsewhere put a prometheus binary (2.x or 3.x) on PATH" >&2
      exit 1
    fi
    dpkg -x "$tools"/deb/prometheus_*.deb "$tools"
  fi
fi

rm -rf "$run"
mkdir -p "$run"

# --- stop everything it started, however it exits ----------------------------------------------
pids=()
stop_all() {
  local status=$?
  trap - EXIT INT TERM
  if [ ${#pids[@]} -gt 0 ]; then
    log "stopping ${#pids[@]} processes"
    kill "${pids[@]}" 2>/dev/null || true
    # The replicas and SBA shut down gracefully on SIGTERM; whatever is left after 30 s is killed.
    for _ in $(seq 1 60); do
      local alive=0
      for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
      [ $alive -eq 0 ] && break
      sleep 0.5
    done
    kill -9 "${pids[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
  fi
  exit $status
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- ports: free ones on 127.0.0.1, picked at random -------------------------------------------
# Below Linux's ephemeral range (32768-60999), where outgoing connections take their local ports.
# free_port sets $port (not echoed: in a $(...) subshell the record of ports taken would be lost,
# and two processes could draw the same one).
taken=" "
port=
free_port() {
  while :; do
    port=$((20000 + RANDOM % 12768))
    case "$taken" in *" $port "*) continue ;; esac
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      taken="$taken$port "
      return
    fi
  done
}
free_port; zk_port=$port
free_port; admin_port=$port
free_port; prometheus_port=$port
replica_ports=()
for _ in 1 2 3; do free_port; replica_ports+=("$port"); done

# Waits up to $1 seconds for the command after it to succeed; says what it waited for if not.
await() {
  local seconds=$1 what=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    for pid in "${pids[@]}"; do
      if ! kill -0 "$pid" 2>/dev/null; then
        echo "a process it started has ended (pid $pid) while waiting for: $what (logs in $run)" >&2
        return 1
      fi
    done
    if [ $SECONDS -ge $deadline ]; then
      echo "gave up after ${seconds} s waiting for: $what (logs in $run)" >&2
      return 1
    fi
    sleep 0.5
  done
}
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# --- ZooKeeper ----------------------------------------------------------------------------------
zk_classpath="$replica_lib/*:$zookeeper_lib/*"
mkdir -p "$run/zookeeper/data"
cat > "$run/zookeeper/zoo.cfg" <<EOF
tickTime=2000
dataDir=$run/zookeeper/data
clientPort=$zk_port
clientPortAddress=127.0.0.1
admin.enableServer=false
EOF
java -Xmx128m -cp "$zk_classpath" org.apache.zookeeper.server.ZooKeeperServerMain "$run/zookeeper/zoo.cfg" \
  > "$run/zookeeper.log" 2>&1 &
pids+=($!)
log "ZooKeeper on 127.0.0.1:$zk_port"
# Serving, not only listening: its srvr command answers with its version once it is.
zk_serving() {
  exec 3<>"/dev/tcp/127.0.0.1/$zk_port" || return 1
  printf 'srvr' >&3
  timeout 5 grep -q '^Zookeeper version' <&3 # a server that accepts and never answers does not hang it
  local found=$?
  exec 3<&-
  return $found
}
await 30 "ZooKeeper serving on port $zk_port" zk_serving

# zkCli commands, one per line on its standard input, in one JVM.
zk_cli() {
  java -Xmx64m -cp "$zk_classpath" org.apache.zookeeper.ZooKeeperMain -server "127.0.0.1:$zk_port" >> "$run/zkcli.log" 2>&1
}
# The pools' options, as the replicas will read them: /config/<application>/<property path>.
zk_cli <<EOF
create /config
create /config/$app
create /config/$app/pools
create /config/$app/pools/instances
create /config/$app/pools/instances/mail
create $node $seeded
quit
EOF

# --- Spring Boot Admin --------------------------------------------------------------------------
admin="http://127.0.0.1:$admin_port"
java -Xmx256m -XX:TieredStopAtLevel=1 -jar "$admin_jar" --server.address=127.0.0.1 --server.port="$admin_port" \
  --spring.application.name=fleet-admin --spring.boot.admin.monitor.status-interval=5s \
  > "$run/admin.log" 2>&1 &
pids+=($!)

# --- three replicas of the sample, their pools from ZooKeeper, registering with SBA --------------
for i in 1 2 3; do
  port=${replica_ports[$((i - 1))]}
  mkdir -p "$run/replica-$i"
  # PropertiesLauncher: the sample's own jar, with the ZooKeeper config client in front of it.
  java -Xmx384m -XX:TieredStopAtLevel=1 -Dloader.path="$replica_lib" \
    -cp "$sample_jar" org.springframework.boot.loader.launch.PropertiesLauncher \
    --server.address=127.0.0.1 --server.port="$port" \
    --spring.config.import="zookeeper:127.0.0.1:$zk_port" \
    --sample.data-dir="$run/replica-$i" --sample.etl.rows=2000 --sample.etl.users=100 \
    --sample.security.ops.password="$ops_password" \
    --spring.boot.admin.client.url="$admin" \
    --spring.boot.admin.client.instance.service-host-type=IP \
    --spring.boot.admin.client.instance.metadata.replica="replica-$i" \
    --spring.boot.admin.client.instance.metadata.user.name=ops \
    --spring.boot.admin.client.instance.metadata.user.password="$ops_password" \
    > "$run/replica-$i.log" 2>&1 &
  pids+=($!)
done

# --- Prometheus, with the shipped rules, scraping the replicas ---------------------------------
{
  echo "global:"
  echo "  scrape_interval: 2s"
  echo "  evaluation_interval: 2s"
  echo "rule_files:"
  echo "  - $root/docs/prometheus/workerpool-alerts.yml"
  echo "scrape_configs:"
  echo "  - job_name: $app"
  echo "    metrics_path: /actuator/prometheus"
  echo "    static_configs:"
  echo "      - targets:"
  for port in "${replica_ports[@]}"; do echo "          - 127.0.0.1:$port"; done
} > "$run/prometheus.yml"
"$prometheus" --config.file="$run/prometheus.yml" --storage.tsdb.path="$run/prometheus-data" \
  --web.listen-address="127.0.0.1:$prometheus_port" > "$run/prometheus.log" 2>&1 &
pids+=($!)
prom="http://127.0.0.1:$prometheus_port"

# --- wait until the fleet is up ------------------------------------------------------------------
log "starting SBA and three replicas (about a minute on 2 cores)"
await 60 "Spring Boot Admin on $admin" curl -sf --max-time 5 "$admin/instances"
for i in 1 2 3; do
  await 180 "replica-$i on port ${replica_ports[$((i - 1))]}" \
    curl -sf --max-time 5 "http://127.0.0.1:${replica_ports[$((i - 1))]}/actuator/pools/mail"
done
await 30 "Prometheus on $prom" curl -sf --max-time 5 "$prom/-/ready"

# The figures, as each place shows them.
replica_capacity() { curl -sf --max-time 5 "http://127.0.0.1:$1/actuator/pools/mail" | grep -o '"capacity":-\?[0-9]*' | head -1 | cut -d: -f2; }
sba_ids() { curl -sf --max-time 5 -H 'Accept: application/json' "$admin/instances" | grep -o '"id":"[0-9a-f]\{12\}"' | cut -d'"' -f4 | sort -u; }
sba_capacities() {
  local id
  for id in $(sba_ids); do
    curl -sf --max-time 5 "$admin/instances/$id/actuator/pools/mail" | grep -o '"capacity":-\?[0-9]*' | head -1 | cut -d: -f2
  done
}
prometheus_capacities() {
  curl -sf --max-time 5 "$prom/api/v1/query" --data-urlencode 'query=executor_pool_max_threads{name="mail"}' \
    | grep -o '"value":\[[0-9.]*,"[0-9-]*"\]' | cut -d'"' -f4
}
replica_has() { [ "$(replica_capacity "$1")" = "$2" ]; }
# "all 3 equal to $1" for a list of values on standard input
all_three() { local values; values=$(cat); [ "$(echo "$values" | grep -c "^$1\$")" -eq 3 ]; }
sba_sees() { sba_capacities | all_three "$1"; }
prometheus_sees() { prometheus_capacities | all_three "$1"; }

await 60 "SBA lists the three replicas with their pools, capacity $seeded from ZooKeeper" sba_sees "$seeded"
await 60 "Prometheus scrapes the three replicas" prometheus_sees "$seeded"
prometheus_has_rules() { local rules; rules=$(curl -sf --max-time 5 "$prom/api/v1/rules") && grep -q '"name":"WorkerPoolDown"' <<< "$rules"; }
await 30 "Prometheus loaded docs/prometheus/workerpool-alerts.yml" prometheus_has_rules

cat <<EOF

The fleet is up (logs and files in $run):
  Spring Boot Admin   $admin   (Pools in its top bar: every replica; a replica, then Pools in its sidebar: tune)
  Prometheus          $prom   (Alerts: the shipped rules; Graph: executor_pool_max_threads)
  replicas            $(for p in "${replica_ports[@]}"; do printf 'http://127.0.0.1:%s/  ' "$p"; done)
  ZooKeeper           127.0.0.1:$zk_port   (pools.* of $app under /config/$app)
  ops login           ops / $ops_password

Retune the pool 'mail' of all three replicas:
  java -cp '$zk_classpath' org.apache.zookeeper.ZooKeeperMain -server 127.0.0.1:$zk_port set $node 16

EOF

if [ "$demo" = true ]; then
  new=12
  log "demo: set $node $new in ZooKeeper"
  started=$SECONDS
  printf 'set %s %s\nquit\n' "$node" "$new" | zk_cli
  for i in 1 2 3; do
    port=${replica_ports[$((i - 1))]}
    await 30 "replica-$i retuned to capacity $new" replica_has "$port" "$new"
    echo "replica-$i (127.0.0.1:$port): capacity $(replica_capacity "$port")"
  done
  await 30 "SBA shows capacity $new on the three replicas" sba_sees "$new"
  echo "SBA, through its proxy: capacity $(sba_capacities | tr '\n' ' ')"
  await 30 "Prometheus has executor_pool_max_threads{name=\"mail\"} $new for the three replicas" prometheus_sees "$new"
  echo "Prometheus, executor_pool_max_threads{name=\"mail\"}: $(prometheus_capacities | tr '\n' ' ')"
  took=$((SECONDS - started))
  log "demo passed: one change in ZooKeeper retuned the three replicas, seen in SBA and Prometheus within $took s"
  exit 0
fi

log "running for $duration s (Ctrl+C stops it sooner)"
sleep "$duration" &
pids+=($!)
wait $! || true
