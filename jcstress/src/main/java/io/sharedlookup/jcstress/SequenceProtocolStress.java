package io.sharedlookup.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.sharedlookup.internal.store.SequenceProtocol;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * The writer's change and a reader's validated read of one segment, racing, through exactly the production
 * {@link SequenceProtocol} methods. The writer changes the value twice (version 0 to 1 to 2), each change between
 * {@code beginChange} and {@code endChange}; the reader reads it once between {@code readBegin} and
 * {@code readValidate}. The reader may see any whole version or be told to retry; it must never accept a value whose
 * words differ.
 */
public final class SequenceProtocolStress {
    private SequenceProtocolStress() {}

    /** The protocol as the writer and the readers use it. */
    @JCStressTest
    @Description("A reader following SequenceProtocol never accepts a half-written value")
    @Outcome(id = "0", expect = ACCEPTABLE, desc = "consistent: the value before both changes")
    @Outcome(id = "1", expect = ACCEPTABLE, desc = "consistent: the value after the first change")
    @Outcome(id = "2", expect = ACCEPTABLE, desc = "consistent: the value after both changes")
    @Outcome(id = "-1", expect = ACCEPTABLE_INTERESTING, desc = "retry: the counter was odd (seen in the middle)")
    @Outcome(id = "-2", expect = ACCEPTABLE_INTERESTING, desc = "retry: the counter moved during the read")
    @Outcome(id = "99", expect = FORBIDDEN, desc = "accepted a half-written value (its words differ)")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class ValidatedRead {
        private final SegmentSnapshot s = new SegmentSnapshot();

        @Actor
        public void writer() {
            s.changeTwice();
        }

        @Actor
        public void reader(I_Result r) {
            long before = SequenceProtocol.readBegin(s.counters, SegmentSnapshot.SEGMENT);
            if (SequenceProtocol.inChange(before)) {
                r.r1 = SegmentSnapshot.RETRY_ODD;
                return;
            }
            int value = s.readValue();
            r.r1 = SequenceProtocol.readValidate(s.counters, SegmentSnapshot.SEGMENT, before)
                    ? value
                    : SegmentSnapshot.RETRY_MOVED;
        }
    }

    /**
     * Sanity variant, not run by CI: the same race with the reader skipping {@code readValidate}. Torn values show
     * up here (as interesting, not forbidden), which shows the harness and the machine can produce the outcome the
     * test above forbids.
     */
    @JCStressTest
    @Description("Without readValidate, a reader does accept half-written values (harness sanity check)")
    @Outcome(
            id = {"0", "1", "2"},
            expect = ACCEPTABLE,
            desc = "a whole value")
    @Outcome(id = "-1", expect = ACCEPTABLE, desc = "retry: the counter was odd (seen in the middle)")
    @Outcome(id = "99", expect = ACCEPTABLE_INTERESTING, desc = "accepted a half-written value: what validation stops")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class UnvalidatedRead {
        private final SegmentSnapshot s = new SegmentSnapshot();

        @Actor
        public void writer() {
            s.changeTwice();
        }

        @Actor
        public void reader(I_Result r) {
            long before = SequenceProtocol.readBegin(s.counters, SegmentSnapshot.SEGMENT);
            r.r1 = SequenceProtocol.inChange(before) ? SegmentSnapshot.RETRY_ODD : s.readValue();
        }
    }
}
