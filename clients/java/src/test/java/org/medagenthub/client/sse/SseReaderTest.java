package org.medagenthub.client.sse;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The ChartSearchAI module's SSE rules (clients.md §2.1), as a table of raw bodies and the frames they yield. */
class SseReaderTest {
    private static final String A = "{\"answer\":\"a\"}";
    private static final String D = "{\"answer\":\"d\"}";

    static Stream<Arguments> table() {
        return Stream.of(
                row("LF", "event: answer_done\ndata: " + A + "\n\nevent: done\ndata: " + D + "\n\n", 0, "answer_done=" + A, "done=" + D),
                row("CRLF", "event: answer_done\r\ndata: " + A + "\r\n\r\nevent: done\r\ndata: " + D + "\r\n\r\n", 0, "answer_done=" + A, "done=" + D),
                row("CR alone", "event: answer_done\rdata: " + A + "\r\revent: done\rdata: " + D + "\r\r", 0, "answer_done=" + A, "done=" + D),
                row("mixed line ends", "event: answer_done\rdata: " + A + "\r\n\nevent: done\ndata: " + D + "\r\r", 0, "answer_done=" + A, "done=" + D),
                row("event names are trimmed", "event:   done \t\ndata: " + D + "\n\n", 0, "done=" + D),
                row("no space after the colons", "event:done\ndata:" + D + "\n\n", 0, "done=" + D),
                row("only one leading space is stripped", "event: x\ndata:  two\n\n", 0, "x= two"),
                row("multi-line data joins with LF", "event: x\ndata: {\"a\":\ndata: 1}\n\n", 0, "x={\"a\":\n1}"),
                row("frame without a name is a message", "data: " + A + "\n\n", 0, "message=" + A),
                row("empty frames are dropped", "\n\n\r\n\nevent: ghost\n\nid: 7\nretry: 10\n\nevent: done\ndata: " + D + "\n\n", 0, "done=" + D),
                row("a name does not leak past an empty frame", "event: ghost\n\ndata: " + A + "\n\n", 0, "message=" + A),
                row("trailing frame without blank line is dispatched", "event: answer_done\ndata: " + A + "\n\nevent: done\ndata: " + D, 0, "answer_done=" + A, "done=" + D),
                row("trailing frame ending in one newline is dispatched", "event: done\ndata: " + D + "\n", 0, "done=" + D),
                row("heartbeats are counted, never frames", ": hb\n\n: hb\r\n\r\nevent: done\n:inside a frame\ndata: " + D + "\n\n: hb\n\n", 4, "done=" + D),
                row("stray lines and unknown fields carry nothing", "bogus line\nid: 1\nevent: done\ndata: " + D + "\n\n", 0, "done=" + D),
                row("a forged event line inside JSON text stays data",
                        "event: answer_done\ndata: {\"answer\":\"x\\n\\nevent: done\\ndata: {}\\r\\revent: done\"}\n\n", 0,
                        "answer_done={\"answer\":\"x\\n\\nevent: done\\ndata: {}\\r\\revent: done\"}"),
                row("empty body", "", 0),
                row("only heartbeats", ": hb\n\n: hb\n\n", 2));
    }

    private static Arguments row(String name, String body, int heartbeats, String... frames) {
        return Arguments.of(name, body, heartbeats, List.of(frames));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void readsFramesAsTheModuleDoes(String name, String body, int heartbeats, List<String> expected) throws IOException {
        assertFrames(new SseReader(new StringReader(body)), heartbeats, expected);
        // The same body delivered one character per read: a CRLF split across reads is still one line end.
        assertFrames(new SseReader(new OneCharReader(body)), heartbeats, expected);
    }

    private static void assertFrames(SseReader reader, int heartbeats, List<String> expected) throws IOException {
        List<String> frames = new ArrayList<>();
        for (SseFrame f = reader.next(); f != null; f = reader.next()) frames.add(f.event() + "=" + f.data());
        assertEquals(expected, frames);
        assertEquals(heartbeats, reader.heartbeats());
    }

    /** A reader that hands out one character at a time, like a network that delivers byte by byte. */
    private static final class OneCharReader extends Reader {
        private final String text;
        private int pos;

        OneCharReader(String text) {
            this.text = text;
        }

        @Override
        public int read(char[] buf, int off, int len) {
            if (pos >= text.length()) return -1;
            if (len == 0) return 0;
            buf[off] = text.charAt(pos++);
            return 1;
        }

        @Override
        public void close() {}
    }
}
