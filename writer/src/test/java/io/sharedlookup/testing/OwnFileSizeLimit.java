package io.sharedlookup.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * This test JVM's own soft RLIMIT_FSIZE, set with util-linux {@code prlimit}: a write that would make a file longer
 * then fails with EFBIG (the JVM ignores SIGXFSZ), as a full disk fails it with ENOSPC, without needing a disk to
 * fill. The hard limit is left as it is. The limit is the whole JVM's: safe because surefire runs this module's
 * tests one at a time. Tests are skipped where {@code prlimit} is missing.
 */
public final class OwnFileSizeLimit implements AutoCloseable {
    private final String before;

    private OwnFileSizeLimit(String before) {
        this.before = before;
    }

    /** Lowers the soft limit to {@code bytes} until {@link #close()}, which restores the one before. */
    public static OwnFileSizeLimit lowerTo(long bytes) throws Exception {
        OwnFileSizeLimit limit = new OwnFileSizeLimit(current());
        prlimit("--fsize=" + bytes + ":");
        return limit;
    }

    @Override
    public void close() throws Exception {
        prlimit("--fsize=" + before + ":");
    }

    /** The soft limit now, as prlimit prints it ("unlimited" or bytes). */
    private static String current() throws Exception {
        try {
            return prlimit("--fsize", "--raw", "--noheadings", "--output=SOFT").trim();
        } catch (IOException e) {
            Assumptions.abort("util-linux prlimit is not installed: " + e.getMessage());
            throw e;
        }
    }

    private static String prlimit(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                "prlimit", "--pid", Long.toString(ProcessHandle.current().pid())));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }
}
