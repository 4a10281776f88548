package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.Manifest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;

/** Writes manifests: the one atomic switch readers follow. */
public final class ManifestFiles {
    private ManifestFiles() {
    }

    /**
     * Atomically replaces {@code file} with {@code manifest}. With {@code durable}, the temporary file and the directory
     * are fsynced so the switch survives a machine crash; offset checkpoints may skip that.
     */
    public static void write(Manifest manifest, Path file, StorePermissions permissions, boolean durable) throws IOException {
        Path dir = file.getParent();
        Path tmp = dir.resolve(file.getFileName() + ".tmp-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap(manifest.toText().getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) {
                    ch.write(bytes);
                }
                if (durable) {
                    ch.force(true);
                }
            }
            permissions.applyToFile(tmp);
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("The store directory's file system cannot rename atomically: " + dir, e);
            }
            if (durable) {
                fsyncDirectory(dir);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    static void fsyncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Some platforms cannot open directories; the rename itself is still atomic.
        }
    }
}
