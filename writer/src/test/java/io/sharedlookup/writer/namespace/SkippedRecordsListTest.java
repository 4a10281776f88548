package io.sharedlookup.writer.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The list of skipped records names each record once, newest last, and keeps the last {@value SkippedRecords#KEPT}. */
class SkippedRecordsListTest {
    @Test
    void aRecordSkippedAgainByARebuild_isListedOnceAsTheNewest() {
        SkippedRecords skipped = new SkippedRecords();
        skipped.add(0, 5, "null key");
        skipped.add(1, 5, "null key");
        skipped.add(0, 9, "cannot be decoded: key is not valid UTF-8");
        skipped.add(0, 5, "null key\tagain"); // the topic read again from its beginning

        assertThat(skipped.list())
                .extracting(s -> s.partition() + "/" + s.offset() + " " + s.reason())
                .containsExactly("1/5 null key", "0/9 cannot be decoded: key is not valid UTF-8", "0/5 null key again");
    }

    @Test
    void keepsTheLastOnes() {
        SkippedRecords skipped = new SkippedRecords();
        for (int offset = 0; offset < SkippedRecords.KEPT + 3; offset++) {
            skipped.add(0, offset, "null key");
        }
        assertThat(skipped.list()).hasSize(SkippedRecords.KEPT);
        assertThat(skipped.list().get(0).offset()).isEqualTo(3);
    }
}
