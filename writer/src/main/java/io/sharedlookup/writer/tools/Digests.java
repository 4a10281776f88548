package io.sharedlookup.writer.tools;

import io.sharedlookup.internal.store.ContentDigest;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.reader.Lookup;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Objects;

/** {@code verify} and {@code diff}: content compared by digest, and key by key. */
final class Digests {
    /** A scan that raced a checkpoint is repeated (a live writer checkpoints several times a second). */
    private static final int ATTEMPTS = 3;

    private Digests() {}

    /** The digest of everything {@code lookup} holds now, and how many entries that was. */
    record Computed(long digest, long entries) {}

    static Computed compute(Lookup lookup) {
        long[] sum = {0, 0};
        lookup.forEach((k, v) -> {
            sum[0] += ContentDigest.of(k, v);
            sum[1]++;
        });
        return new Computed(sum[0], sum[1]);
    }

    /**
     * Recomputes the digest and compares it with the published one, scanning again when the manifest moved on during
     * the scan.
     *
     * @return 0 when equal, 1 when not
     */
    static int verify(Path store, String namespace, Lookup lookup, PrintWriter out, PrintWriter err) {
        Manifest before = StoreTools.manifest(store, namespace);
        if (before.contentDigest() == null) {
            throw new StoreTools.ToolException("Namespace '" + namespace + "' has no published content digest (written "
                    + "by a writer from before digests); a writer of this release adds it at its next checkpoint");
        }
        Computed computed = null;
        Manifest after = before;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            computed = compute(lookup);
            after = StoreTools.manifest(store, namespace);
            boolean steady =
                    after.generation() == before.generation() && after.contentVersion() == before.contentVersion();
            if (steady && Objects.equals(after.contentDigest(), computed.digest())) {
                out.println("ok: namespace '" + namespace + "' digest " + ContentDigest.hex(computed.digest())
                        + " matches its " + computed.entries() + " entries at offsets " + after.offsets());
                return 0;
            }
            if (steady) {
                break; // the manifest did not move: a real difference, or updates not yet checkpointed
            }
            before = after;
        }
        err.println("DIFFERS: namespace '" + namespace + "' published digest "
                + ContentDigest.hex(after.contentDigest())
                + " at offsets " + after.offsets() + ", computed " + ContentDigest.hex(computed.digest()) + " from "
                + computed.entries() + " entries"
                + (after.writerState() == Manifest.WriterState.OPEN
                        ? " (the writer is running: if updates were arriving, run verify again when the topic is idle)"
                        : ""));
        return 1;
    }

    /**
     * Writes each key whose value differs between {@code a} and {@code b}.
     *
     * @return how many keys differ
     */
    static long diff(Lookup a, Lookup b, PrintWriter out) {
        long[] count = {0};
        a.forEach((k, va) -> {
            String vb = b.get(k);
            if (!va.equals(vb)) {
                row(out, k, va, vb, vb == null ? "only-in-a" : "differs");
                count[0]++;
            }
        });
        b.forEach((k, vb) -> {
            if (a.get(k) == null) {
                row(out, k, null, vb, "only-in-b");
                count[0]++;
            }
        });
        return count[0];
    }

    private static void row(PrintWriter out, String key, String a, String b, String status) {
        out.append(Tsv.escape(key))
                .append('\t')
                .append(a == null ? "" : Tsv.escape(a))
                .append('\t')
                .append(b == null ? "" : Tsv.escape(b))
                .append('\t')
                .append(status)
                .append('\n');
    }
}
