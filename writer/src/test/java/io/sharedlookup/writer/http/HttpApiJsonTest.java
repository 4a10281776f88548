package io.sharedlookup.writer.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.writer.namespace.NamespaceStatus;
import io.sharedlookup.writer.namespace.NamespaceStatus.State;
import io.sharedlookup.writer.namespace.SkippedRecords;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The JSON of /ready and /namespaces, byte for byte: field names, order, nulls and the omitted reason. */
class HttpApiJsonTest {
    private static final NamespaceStatus LIVE = new NamespaceStatus(
            "users",
            "users-topic",
            State.LIVE,
            3,
            10,
            100,
            0.123456,
            Map.of(0, 0L),
            1_700_000_000_000L,
            null,
            true,
            null,
            Map.of(0, 42L),
            0xabcdefL,
            List.of(new SkippedRecords.Skipped(0, 7, "null key", "2023-11-14T22:13:19Z")),
            1_700_000_000_000L);
    private static final NamespaceStatus STARTING = new NamespaceStatus(
            "items",
            "items",
            State.STARTING,
            0,
            0,
            0,
            0,
            Map.of(),
            0,
            "broker unreachable",
            false,
            "not caught up",
            Map.of(),
            null);

    private static HttpApi api(NamespaceStatus... statuses) {
        Map<String, NamespaceStatus> byName = new LinkedHashMap<>();
        for (NamespaceStatus s : statuses) {
            byName.put(s.namespace(), s);
        }
        return new HttpApi(() -> byName, null, null);
    }

    private static String body(HttpApi.Response r) {
        assertThat(r.contentType()).isEqualTo("application/json");
        return new String(r.body(), StandardCharsets.UTF_8).replace("\r\n", "\n");
    }

    @Test
    void readyListsTheNamespacesNotReady() {
        HttpApi.Response ready = api(LIVE).handle("GET", "/ready");
        assertThat(ready.status()).isEqualTo(200);
        assertThat(body(ready)).isEqualTo("{\n  \"notReady\" : { },\n  \"ready\" : true\n}");
        HttpApi.Response notReady = api(LIVE, STARTING).handle("GET", "/ready");
        assertThat(notReady.status()).isEqualTo(503);
        assertThat(body(notReady))
                .isEqualTo(
                        "{\n  \"notReady\" : {\n    \"items\" : \"not caught up\"\n  },\n" + "  \"ready\" : false\n}");
    }

    @Test
    void namespacesShowEveryFieldInOrder() {
        HttpApi.Response r = api(LIVE, STARTING).handle("GET", "/namespaces");
        assertThat(r.status()).isEqualTo(200);
        assertThat(body(r)).isEqualTo("""
                {
                  "users" : {
                    "topic" : "users-topic",
                    "state" : "LIVE",
                    "ready" : true,
                    "caughtUp" : true,
                    "generation" : 3,
                    "entries" : 10,
                    "capacity" : 100,
                    "fillRatio" : 0.1235,
                    "lag" : {
                      "0" : 0
                    },
                    "lastUpdate" : "2023-11-14T22:13:20Z",
                    "lastError" : null,
                    "offsets" : {
                      "0" : 42
                    },
                    "digest" : "0000000000abcdef",
                    "skippedRecords" : [ {
                      "partition" : 0,
                      "offset" : 7,
                      "reason" : "null key",
                      "at" : "2023-11-14T22:13:19Z"
                    } ]
                  },
                  "items" : {
                    "topic" : "items",
                    "state" : "STARTING",
                    "ready" : false,
                    "notReadyReason" : "not caught up",
                    "caughtUp" : false,
                    "generation" : 0,
                    "entries" : 0,
                    "capacity" : 0,
                    "fillRatio" : 0.0,
                    "lag" : { },
                    "lastUpdate" : null,
                    "lastError" : "broker unreachable",
                    "offsets" : { },
                    "digest" : null,
                    "skippedRecords" : [ ]
                  }
                }""");
    }
}
