package io.sharedlookup.writer.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.Set;

/**
 * Tells a world-writable directory that many users share (/tmp) from one a user opened up by mistake. Advice for the
 * first must never be {@code chmod o-w}: following it breaks every other program on the host.
 */
final class SharedDirectories {
    /** The sticky bit of a Unix mode: set on /tmp and the like, where anyone may create but only owners delete. */
    private static final int STICKY = 01000;
    /** Shared by design on Linux and macOS, whatever their mode says. */
    private static final Set<Path> SYSTEM = Set.of(
            Path.of("/tmp"),
            Path.of("/var/tmp"),
            Path.of("/dev/shm"),
            Path.of("/private/tmp"),
            Path.of("/private/var/tmp"));

    private SharedDirectories() {}

    /**
     * Whether {@code dir} is plausibly shared rather than the user's own: a known system directory, sticky, or owned
     * by another user.
     */
    static boolean isShared(Path dir, PosixFileAttributes attributes) {
        Path real;
        try {
            real = dir.toRealPath();
        } catch (IOException e) {
            real = dir.toAbsolutePath().normalize();
        }
        if (SYSTEM.contains(real) || SYSTEM.contains(dir.toAbsolutePath().normalize())) {
            return true;
        }
        if (!attributes.owner().getName().equals(System.getProperty("user.name"))) {
            return true;
        }
        try {
            // "unix:mode" is a JDK-specific view (Linux, macOS): the only way to see the sticky bit from Java.
            Object mode = Files.getAttribute(dir, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return mode instanceof Integer bits && (bits & STICKY) != 0;
        } catch (UnsupportedOperationException | IllegalArgumentException | IOException e) {
            return false; // no such view: the mode we saw is all there is to go on
        }
    }
}
