package io.sharedlookup.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A process's resident memory from {@code /proc/<pid>/smaps}, split into the pages of files under one directory (the
 * memory-mapped store, which is page cache shared with every reader) and everything else (heap, metaspace, code,
 * thread stacks, direct buffers, native libraries): the writer's own footprint.
 */
record ResidentMemory(long totalBytes, long underDirBytes) {
    long outsideDirBytes() {
        return totalBytes - underDirBytes;
    }

    static ResidentMemory of(long pid, Path dir) throws IOException {
        String prefix = dir.toAbsolutePath().toString() + "/";
        long total = 0;
        long underDir = 0;
        boolean inDir = false;
        List<String> lines = Files.readAllLines(Path.of("/proc/" + pid + "/smaps"));
        for (String line : lines) {
            if (isMappingHeader(line)) {
                int slash = line.indexOf('/');
                inDir = slash >= 0 && line.substring(slash).startsWith(prefix);
            } else if (line.startsWith("Rss:")) {
                long bytes = Long.parseLong(line.replaceAll("\\D", "")) * 1024;
                total += bytes;
                if (inDir) {
                    underDir += bytes;
                }
            }
        }
        return new ResidentMemory(total, underDir);
    }

    /** Mapping lines start with an address range ("7f00-7f10 r--p ..."); field lines with a name and a colon. */
    private static boolean isMappingHeader(String line) {
        int dash = line.indexOf('-');
        int space = line.indexOf(' ');
        return dash > 0 && space > dash && line.substring(0, dash).chars().allMatch(c -> Character.digit(c, 16) >= 0);
    }
}
