package io.sharedlookup.writer.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The operator commands' log goes to stderr: their stdout is data (a dump redirected to a file). */
class ToolLoggingTest {
    @Test
    void theLogGoesToStderrAndBackToStdout() {
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            ToolLogging.consoleTo(true);
            LoggerFactory.getLogger(ToolLoggingTest.class).info("a line of the tool's log");
            ToolLogging.consoleTo(false);
            LoggerFactory.getLogger(ToolLoggingTest.class).info("a line of the service's log");
        } finally {
            ToolLogging.consoleTo(false);
            System.setOut(stdout);
            System.setErr(stderr);
        }
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("a line of the tool's log")
                .doesNotContain("service's");
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("a line of the service's log")
                .doesNotContain("tool's");
    }
}
