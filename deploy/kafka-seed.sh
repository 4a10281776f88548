#!/usr/bin/env bash
# Creates the sample topics and fills them: users and items (compacted reference data, id -> name) and pageviews
# (a fact stream of JSON events referring to those ids, for Druid to ingest).
set -euo pipefail
BIN=/opt/kafka/bin
B=${BOOTSTRAP:-kafka:9092}

for topic in users items; do
  $BIN/kafka-topics.sh --bootstrap-server "$B" --create --if-not-exists --topic "$topic" \
    --partitions 3 --replication-factor 1 --config cleanup.policy=compact
done
$BIN/kafka-topics.sh --bootstrap-server "$B" --create --if-not-exists --topic pageviews \
  --partitions 3 --replication-factor 1

seq 1 50000 | awk '{ printf "%d|User %d\n", $1, $1 }' |
  $BIN/kafka-console-producer.sh --bootstrap-server "$B" --topic users \
    --property parse.key=true --property key.separator='|'
seq 1 5000 | awk '{ printf "%d|Item %d\n", $1, $1 }' |
  $BIN/kafka-console-producer.sh --bootstrap-server "$B" --topic items \
    --property parse.key=true --property key.separator='|'

now=$(date +%s)
seq 1 200000 | awk -v now="$now" 'BEGIN { srand(42) }
  { t = now - int(rand() * 3600);
    printf "{\"time\":%d000,\"user_id\":\"%d\",\"item_id\":\"%d\",\"views\":1}\n", t, 1 + int(rand() * 50000), 1 + int(rand() * 5000) }' |
  $BIN/kafka-console-producer.sh --bootstrap-server "$B" --topic pageviews
echo "seeded users, items and pageviews"
