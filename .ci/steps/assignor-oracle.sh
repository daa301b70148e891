#!/usr/bin/env bash
# Compares `regroup assign` with Apache Kafka 4.4.0's own assignors (conformance/oracle) on seeded random
# inputs: the streams StickyTaskAssignor, then the consumer-group UniformAssignor and RangeAssignor
# (docs/consumer.md). Skips with a notice when java or mvn is missing; exits non-zero on any difference.
#   ASSIGNOR_ORACLE_COUNT (default 1000)  number of streams inputs
#   ASSIGNOR_ORACLE_SEED  (default 4400)  generator seed (both generators)
#   ASSIGNOR_ORACLE_MAX_MEMBERS (default 200)
#   CONSUMER_ASSIGNOR_ORACLE_COUNT (default 1000)  consumer-group inputs per assignor (uniform, range)
set -euo pipefail
cd "$(dirname "$0")/../.."

for tool in java mvn; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "assignor-oracle: SKIPPED ($tool not found; needs Java 17+ and Maven)"
    exit 0
  fi
done

count="${ASSIGNOR_ORACLE_COUNT:-1000}"
seed="${ASSIGNOR_ORACLE_SEED:-4400}"
max_members="${ASSIGNOR_ORACLE_MAX_MEMBERS:-200}"

echo "assignor-oracle: building the oracle (Kafka 4.4.0 from Maven Central)"
(cd conformance/oracle && mvn -q -B -Dstyle.color=never package -DskipTests)
cp="conformance/oracle/target/classes:conformance/oracle/target/lib/*"

echo "assignor-oracle: building regroup"
cargo build -q -p scenarios --bin regroup
regroup="${CARGO_TARGET_DIR:-target}/debug/regroup"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

java -cp "$cp" dev.regroup.oracle.RandomInputs "$count" "$seed" "$max_members" > "$work/inputs.jsonl"
# Both exit 2 when some input has tasks but no member (Kafka's TaskAssignorException); the lines still compare.
java -cp "$cp" dev.regroup.oracle.Assign --lines "$work/inputs.jsonl" > "$work/kafka.jsonl" || [ $? -eq 2 ]
"$regroup" assign --lines "$work/inputs.jsonl" > "$work/regroup.jsonl" 2>/dev/null || [ $? -eq 2 ]

# Prints how many lines of $1 and $2 differ, showing the first three with their input from $3.
count_differences() {
  local differences=0 line=0 kafka ours
  while IFS= read -r kafka <&3 && IFS= read -r ours <&4; do
    line=$((line + 1))
    if [ "$kafka" != "$ours" ]; then
      differences=$((differences + 1))
      if [ "$differences" -le 3 ]; then
        echo "--- difference on input $line (seed $seed):" >&2
        sed -n "${line}p" "$3" >&2
        echo "kafka:   $kafka" >&2
        echo "regroup: $ours" >&2
      fi
    fi
  done 3< "$1" 4< "$2"
  echo "$differences"
}

kafka_lines=$(wc -l < "$work/kafka.jsonl")
regroup_lines=$(wc -l < "$work/regroup.jsonl")
if [ "$kafka_lines" -ne "$count" ] || [ "$regroup_lines" -ne "$count" ]; then
  echo "assignor-oracle: FAILED: expected $count outputs, Kafka gave $kafka_lines, regroup $regroup_lines"
  exit 1
fi

differences=$(count_differences "$work/kafka.jsonl" "$work/regroup.jsonl" "$work/inputs.jsonl")

if [ "$differences" -ne 0 ]; then
  echo "assignor-oracle: FAILED: $differences of $count assignments differ from Kafka 4.4.0"
  exit 1
fi
echo "assignor-oracle: $count random inputs (seed $seed, up to $max_members members): regroup equals Kafka 4.4.0 on all"

# The consumer-group assignors: COUNT inputs each, uniform and range alternately.
consumer_count="${CONSUMER_ASSIGNOR_ORACLE_COUNT:-1000}"
java -cp "$cp" dev.regroup.oracle.ConsumerRandomInputs "$consumer_count" "$seed" "$max_members" > "$work/consumer-inputs.jsonl"
# Both exit 2 when some assignor threw (PartitionAssignorException, ...); the lines still compare.
java -cp "$cp" dev.regroup.oracle.Assign --lines "$work/consumer-inputs.jsonl" > "$work/consumer-kafka.jsonl" || [ $? -eq 2 ]
"$regroup" assign --lines "$work/consumer-inputs.jsonl" > "$work/consumer-regroup.jsonl" 2>/dev/null || [ $? -eq 2 ]
expected=$((2 * consumer_count))
kafka_lines=$(wc -l < "$work/consumer-kafka.jsonl")
regroup_lines=$(wc -l < "$work/consumer-regroup.jsonl")
if [ "$kafka_lines" -ne "$expected" ] || [ "$regroup_lines" -ne "$expected" ]; then
  echo "assignor-oracle: FAILED: expected $expected consumer-group outputs, Kafka gave $kafka_lines, regroup $regroup_lines"
  exit 1
fi
differences=$(count_differences "$work/consumer-kafka.jsonl" "$work/consumer-regroup.jsonl" "$work/consumer-inputs.jsonl")
if [ "$differences" -ne 0 ]; then
  echo "assignor-oracle: FAILED: $differences of $expected consumer-group assignments differ from Kafka 4.4.0"
  exit 1
fi
errors=$(grep -c '^{"error"' "$work/consumer-kafka.jsonl" || true)
echo "assignor-oracle: $consumer_count random consumer-group inputs for each of uniform and range (seed $seed, up to $max_members members; $errors of them Kafka exceptions): regroup equals Kafka 4.4.0 on all"

# The same oracle inside a simulation (`--assignor-oracle`): every target the simulated brokers compute
# is checked against Kafka's assignor. Seed 5 of swarm-streams passes on Kafka 4.4.0's logic and fails
# with KAFKA-20899's switched on (docs/bug-zoo.md): the check runs, and it can fail.
"$regroup" run swarm-streams --seed 5 --assignor-oracle > "$work/sim-correct.txt" || {
  cat "$work/sim-correct.txt"
  echo "assignor-oracle: FAILED: swarm-streams seed 5 of the correct model differs from Kafka's assignor"
  exit 1
}
if "$regroup" run swarm-streams --seed 5 --kafka-bug kafka-20899 --assignor-oracle > "$work/sim-bug.txt"; then
  echo "assignor-oracle: FAILED: swarm-streams seed 5 with kafka-20899 passed the assignor oracle"
  exit 1
fi
grep -q "FAILED: assignor-oracle" "$work/sim-bug.txt" || {
  cat "$work/sim-bug.txt"
  echo "assignor-oracle: FAILED: swarm-streams seed 5 with kafka-20899 failed, but not on assignor-oracle"
  exit 1
}
echo "assignor-oracle: in the simulator, swarm-streams seed 5 agrees with Kafka's assignor, and its KAFKA-20899 switch is caught"
