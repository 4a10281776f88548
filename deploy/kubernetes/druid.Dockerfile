# Druid with the sharedLookup extension, for deploy/kubernetes/druid-historical.yaml. From the repository root:
#   ./mvnw -B -q -pl druid-extension -am clean package -Dmaven.test.skip=true
#   docker build -f deploy/kubernetes/druid.Dockerfile -t druid-shared-lookup:33.0.0 .
FROM apache/druid:33.0.0
COPY --chown=druid:druid druid-extension/target/druid-shared-lookup /opt/druid/extensions/druid-shared-lookup
