package io.sharedlookup.writer.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The rules of the one {@code lastError} slot that every part of a namespace's sink reports through: a stall's
 * message, which says what to do, stays until a record is stored; a step's error (checkpoint, publish, growth) shows
 * when no stall does and goes when that step succeeds. Growth has no other way to report than these (there is no
 * plain setter), so its retries during a full-volume stall no longer replace the stall's advice every few seconds.
 */
class LastErrorTest {
    private static final String STALL = "cannot extend generation g0000000002.cmap (File too large); free disk space, "
            + "the writer retries every 2 s by itself";
    private static final String GROWTH = "cannot create a generation of 4000 entries (retrying in 2 s): File too large";

    @Test
    void aStepThatFailsDuringAStallLeavesTheStallsMessage() {
        LastError error = new LastError();
        error.stall(STALL, 2000);
        error.stepFailed(GROWTH);
        error.stepFailed("cannot write the manifest: File too large");
        error.stepSucceeded("cannot write the manifest: ");
        assertThat(error.get()).isEqualTo(STALL);
        assertThat(error.stalledAt(System.nanoTime())).isTrue();

        error.stallOver();
        assertThat(error.get()).as("a stored record ends the stall").isNull();
        error.stepFailed(GROWTH);
        assertThat(error.get()).as("no stall: the step's error shows").isEqualTo(GROWTH);
    }

    @Test
    void aNewStallReplacesAStepsErrorAndAnEarlierStall() {
        LastError error = new LastError();
        error.stepFailed(GROWTH);
        error.stall("generation g1 is full", 1000);
        assertThat(error.get()).isEqualTo("generation g1 is full");
        error.stall(STALL, 2000);
        assertThat(error.get()).isEqualTo(STALL);
    }

    @Test
    void aStepsErrorGoesWhenThatStepSucceedsAndNotWhenAnotherDoes() {
        LastError error = new LastError();
        error.stepFailed("cannot write the manifest: No space left on device");
        error.stepSucceeded("cannot publish generation ");
        assertThat(error.get()).startsWith("cannot write the manifest: ");
        error.stallOver();
        assertThat(error.get()).as("records are stored while checkpoints fail: not a stall's end")
                .startsWith("cannot write the manifest: ");
        error.stepSucceeded("cannot write the manifest: ");
        assertThat(error.get()).isNull();
    }
}
