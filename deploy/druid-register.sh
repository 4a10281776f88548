#!/bin/sh
# Registers the sharedLookup lookups with the Coordinator (tier __default) and starts Kafka ingestion of pageviews.
set -eu
C=${COORDINATOR:-http://coordinator:8081}

# The lookup config must exist before lookups can be added to it; {} initialises it (a no-op when it exists).
curl -fsS -X POST -H 'Content-Type: application/json' "$C/druid/coordinator/v1/lookups/config" -d '{}'
curl -fsS -X POST -H 'Content-Type: application/json' "$C/druid/coordinator/v1/lookups/config" -d '{
  "__default": {
    "users": {"version": "v1", "lookupExtractorFactory": {"type": "sharedLookup", "namespace": "users"}},
    "items": {"version": "v1", "lookupExtractorFactory": {"type": "sharedLookup", "namespace": "items"}}
  }
}'
echo
curl -fsS -X POST -H 'Content-Type: application/json' "$C/druid/indexer/v1/supervisor" \
  -d @/deploy/pageviews-supervisor.json
echo
echo "registered lookups users, items and the pageviews supervisor"
