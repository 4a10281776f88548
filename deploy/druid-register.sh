#!/bin/sh
# Registers the sharedLookup lookups with the Coordinator (tier __default) and starts Kafka ingestion of pageviews.
set -eu
C=${COORDINATOR:-http://coordinator:8081}

# The Coordinator refuses a lookup spec whose version does not sort after the one it holds, and its metadata volume
# outlives a `docker compose down`: a UTC timestamp as the version lets this job run again on every `up`.
V="v$(date -u +%Y%m%d%H%M%S)"
# The lookup config must exist before lookups can be added to it; {} initialises it (a no-op when it exists).
curl -fsS -X POST -H 'Content-Type: application/json' "$C/druid/coordinator/v1/lookups/config" -d '{}'
curl -fsS -X POST -H 'Content-Type: application/json' "$C/druid/coordinator/v1/lookups/config" -d '{
  "__default": {
    "users": {"version": "'"$V"'", "lookupExtractorFactory": {"type": "sharedLookup", "namespace": "users"}},
    "items": {"version": "'"$V"'", "lookupExtractorFactory": {"type": "sharedLookup", "namespace": "items"}}
  }
}'
echo
curl -fsS -X POST -H 'Content-Type: application/json' "$C/druid/indexer/v1/supervisor" \
  -d @/deploy/pageviews-supervisor.json
echo
echo "registered lookups users, items and the pageviews supervisor"
