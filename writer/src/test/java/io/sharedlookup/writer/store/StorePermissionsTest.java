package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StorePermissionsTest {
    @TempDir
    Path tmp;

    @Test
    void defaultsToGroupReadableFilesAndDirectories() {
        assertThat(PosixFilePermissions.toString(StorePermissions.DEFAULT.file()))
                .isEqualTo("rw-r-----");
        assertThat(PosixFilePermissions.toString(StorePermissions.DEFAULT.directory()))
                .isEqualTo("rwxr-x---");
    }

    @Test
    void parsesOctalAndSymbolicModes() {
        StorePermissions p = StorePermissions.parse("0644", "rwxr-xr-x");
        assertThat(PosixFilePermissions.toString(p.file())).isEqualTo("rw-r--r--");
        assertThat(PosixFilePermissions.toString(p.directory())).isEqualTo("rwxr-xr-x");
    }

    @Test
    void refusesWorldWritableAndGarbageModes() {
        assertThatThrownBy(() -> StorePermissions.parse("0666", "0750")).hasMessageContaining("world-writable");
        assertThatThrownBy(() -> StorePermissions.parse("0640", "0777")).hasMessageContaining("world-writable");
        assertThatThrownBy(() -> StorePermissions.parse("rw-rw", "0750"))
                .hasMessageContaining("Invalid permission mode");
    }

    /** The writer maps its files read-write and creates files in its directories: the owner must keep those bits. */
    @Test
    void refusesModesTheWriterItselfCouldNotUse() {
        for (String file : new String[] {"0440", "0240", "0040", "r--r-----"}) {
            assertThatThrownBy(() -> StorePermissions.parse(file, "0750"))
                    .as(file)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("give the owner rw");
        }
        for (String dir : new String[] {"0600", "0550", "0350", "rw-r-x---"}) {
            assertThatThrownBy(() -> StorePermissions.parse("0640", dir))
                    .as(dir)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("give the owner rwx");
        }
        assertThat(StorePermissions.parse("0600", "0700").file()).hasSize(2);
    }

    /** Advice for a shared directory must never be chmod o-w: following it breaks the host (issue 40). */
    @Test
    void aWorldWritableSharedDirectoryGetsSubdirectoryAdviceAndOnlyAnOwnOneGetsChmod() throws Exception {
        assertThatThrownBy(() -> StorePermissions.requireNotWorldWritable(Path.of("/tmp"), "Store directory"))
                .isInstanceOf(UnsafeStoreException.class)
                .hasMessageContaining("Store directory /tmp is world-writable")
                .hasMessageContaining("use a directory of your own below it, e.g. --store-dir /tmp/shared-lookup")
                .hasMessageNotContaining("chmod");

        Path sticky = Files.createDirectory(tmp.resolve("sticky"));
        assertThat(new ProcessBuilder("chmod", "1777", sticky.toString())
                        .start()
                        .waitFor())
                .isZero();
        assertThatThrownBy(() -> StorePermissions.requireNotWorldWritable(sticky, "Store directory"))
                .hasMessageEndingWith("use a directory of your own below it, e.g. --store-dir "
                        + sticky.resolve("shared-lookup") + " (the writer creates it, not world-writable); never "
                        + "change the mode of a shared directory");

        Path own = Files.createDirectory(tmp.resolve("own"));
        Files.setPosixFilePermissions(own, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> StorePermissions.requireNotWorldWritable(own, "Store directory"))
                .hasMessage("Store directory " + own + " is world-writable (rwxrwxrwx), so anyone could replace "
                        + "store files: run chmod o-w " + own + " (rwxrwxr-x)");
    }
}
