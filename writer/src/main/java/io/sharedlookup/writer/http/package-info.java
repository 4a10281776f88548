/**
 * The writer's read-only HTTP interface: the endpoints ({@link io.sharedlookup.writer.http.HttpApi}: health,
 * readiness, namespace status, metrics, lookups through reader-lib) and their Netty transport with its connection,
 * size and time limits ({@link io.sharedlookup.writer.http.HttpServer}). Nothing here changes data or touches the
 * ingest thread's state: statuses are immutable snapshots it publishes.
 */
package io.sharedlookup.writer.http;
