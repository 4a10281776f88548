package io.sharedlookup.writer.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The rules of the one {@code lastError} slot that every part of a namespace's ingest reports through: a stall's
 * message, which says what to do, stays until what the stall waited for is done; otherwise the error of the step
 * that failed most recently among those still failing (checkpoint, publish, growth) shows, so that one step
 * succeeding does not hide another that still fails. Growth's retries during a full-volume stall do not replace the
 * stall's advice every few seconds.
 */
class LastErrorTest {
    private static final String CHECKPOINT = "checkpoint";
    private static final String STALL = "cannot extend generation g0000000002.cmap (File too large); free disk space, "
            + "the writer retries every 2 s by itself";
    private static final String GROWTH = "cannot create a generation of 4000 entries (retrying in 2 s): File too large";
    private static final String MANIFEST = "cannot write the manifest: File too large";

    @Test
    void aStepThatFailsDuringAStallLeavesTheStallsMessageAndShowsWhenTheStallIsOver() {
        LastError error = new LastError();
        error.stall(STALL, 2000);
        error.stepFailed(LastError.GROWTH, GROWTH);
        error.stepFailed(CHECKPOINT, MANIFEST);
        error.stepSucceeded(CHECKPOINT);
        assertThat(error.get()).isEqualTo(STALL);
        assertThat(error.stalledAt(System.nanoTime())).isTrue();

        error.stallOver();
        assertThat(error.get())
                .as("a stored record ends the stall; growth still fails")
                .isEqualTo(GROWTH);
        error.stepSucceeded(LastError.GROWTH);
        assertThat(error.get()).isNull();
    }

    @Test
    void aNewStallReplacesAStepsErrorAndAnEarlierStall() {
        LastError error = new LastError();
        error.stepFailed(LastError.GROWTH, GROWTH);
        error.stall("generation g1 is full", 1000);
        assertThat(error.get()).isEqualTo("generation g1 is full");
        error.stall(STALL, 2000);
        assertThat(error.get()).isEqualTo(STALL);
    }

    @Test
    void aStepsErrorGoesWhenThatStepSucceedsAndNotWhenAnotherDoes() {
        LastError error = new LastError();
        error.stepFailed(CHECKPOINT, MANIFEST);
        error.stepSucceeded("publish");
        assertThat(error.get()).isEqualTo(MANIFEST);
        error.stallOver();
        assertThat(error.get())
                .as("records are stored while checkpoints fail: not a stall's end")
                .isEqualTo(MANIFEST);
        error.stepSucceeded(CHECKPOINT);
        assertThat(error.get()).isNull();
    }

    /** Before, a checkpoint succeeding again hid growth's failure until growth's next retry (up to 30 s). */
    @Test
    void aStepThatSucceedsRevealsTheOneStillFailing() {
        LastError error = new LastError();
        error.stepFailed(LastError.GROWTH, GROWTH);
        error.stepFailed(CHECKPOINT, MANIFEST);
        assertThat(error.get()).as("the most recent failure").isEqualTo(MANIFEST);
        assertThat(error.failing(LastError.GROWTH)).isEqualTo(GROWTH);
        error.stepSucceeded(CHECKPOINT);
        assertThat(error.get()).isEqualTo(GROWTH);

        error.stepFailed(CHECKPOINT, MANIFEST);
        error.stepFailed(LastError.GROWTH, GROWTH + " again");
        assertThat(error.get()).isEqualTo(GROWTH + " again");
        error.stepSucceeded(LastError.GROWTH);
        assertThat(error.get()).isEqualTo(MANIFEST);
        assertThat(error.failing(LastError.GROWTH)).isNull();
        error.clear();
        assertThat(error.get()).isNull();
        assertThat(error.failing(CHECKPOINT)).isNull();
    }

    /**
     * While growth waits for its retry, its failure says why the namespace is STALLED; a stall's advice stays shown
     * until what the stall waited for is done, even after its pause has ended (the record not yet read again): the
     * two used to alternate in {@code /namespaces}.
     */
    @Test
    void whileGrowthWaitsItsFailureShowsUnlessAStallsAdviceIs() {
        LastError error = new LastError();
        error.stepFailed(LastError.GROWTH, GROWTH);
        error.stepFailed(CHECKPOINT, MANIFEST);
        assertThat(error.shown(true)).isEqualTo(GROWTH);
        assertThat(error.shown(false)).isEqualTo(MANIFEST);

        error.stall(STALL, 0); // its pause is over at once
        assertThat(error.stalledAt(System.nanoTime())).isFalse();
        assertThat(error.shown(true)).isEqualTo(STALL);
        error.stallOver();
        assertThat(error.shown(true)).isEqualTo(GROWTH);
    }
}
