package org.medagenthub.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.medagenthub.client.envelope.ProductEnvelope;
import org.medagenthub.client.errors.HubProtocolException;

/** The staged-event rules on top of SSE framing: JSON objects only, the retired flat In-Depth shape refused, stop at the terminal. */
class StagedStreamTest {
    private static final String REF3 = "{\"index\":3,\"resolutionStatus\":\"resolved\",\"usage\":[{\"location\":\"answer\",\"text\":\"t\"}],\"groundingStatus\":\"unchecked\",\"grounded\":null}";
    private static final String REF5 = "{\"index\":5,\"resolutionStatus\":\"resolved\",\"usage\":[{\"location\":\"indepth\",\"text\":\"t\"}],\"groundingStatus\":\"unchecked\",\"grounded\":null}";
    private static final String PENDING = "{\"answer\":\"A [3]\",\"references\":[" + REF3 + "],\"answerValidation\":{\"status\":\"checked\",\"label\":\"l\",\"summary\":\"s\",\"issues\":[]},\"inDepth\":{\"status\":\"pending\",\"answer\":\"\",\"error\":\"\"}}";
    private static final String DONE = "{\"answer\":\"A [3]\",\"references\":[" + REF3 + "," + REF5 + "],\"answerValidation\":{\"status\":\"checked\",\"label\":\"l\",\"summary\":\"s\",\"issues\":[]},\"inDepth\":{\"status\":\"complete\",\"answer\":\"- c [5]\",\"error\":\"\"}}";

    private static StagedStream streamOf(String body) {
        return new StagedStream(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<String> names(StagedStream stream) {
        List<String> names = new ArrayList<>();
        for (StagedEvent event : stream) names.add(event.name());
        return names;
    }

    @Test
    void yieldsTypedEventsUpToDone() {
        StagedStream stream = streamOf(": hb\n\nevent: answer_done\ndata: " + PENDING + "\n\n: hb\n\nevent: indepth_done\ndata: " + DONE + "\n\nevent: done\ndata: " + DONE + "\n\n");
        assertEquals(List.of("answer_done", "indepth_done", "done"), names(stream));
        assertEquals(2, stream.heartbeats());
        ProductEnvelope last = stream.lastEnvelope().orElseThrow();
        assertEquals("complete", last.inDepth().orElseThrow().status());
        assertEquals("checked", last.answerValidation().orElseThrow().status());
        // Staged events carry no citations: the hub's rule (answer/block usages, reference order) gives them.
        assertEquals(List.of(3), last.citations());
        assertEquals(List.of(3, 5), last.references().stream().map(r -> r.index()).toList());
        assertTrue(stream.terminal().orElseThrow().isTerminal());
    }

    @Test
    void readingStopsAtTheFirstTerminalAndClosesTheBody() {
        AtomicBoolean closed = new AtomicBoolean();
        String body = "event: done\ndata: " + DONE + "\n\nevent: answer_done\ndata: not json at all\n\n";
        InputStream in = new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)) {
            @Override
            public void close() {
                closed.set(true);
            }
        };
        StagedStream stream = new StagedStream(in);
        assertEquals(List.of("done"), names(stream)); // the bad frame after done is never parsed
        assertTrue(closed.get());
    }

    @Test
    void errorEventIsTheTerminalEventNotAnException() {
        StagedStream stream = streamOf("event: error\ndata: {\"code\":\"insufficient_context\",\"source\":\"selector\",\"message\":\"too big\"}\n\n");
        List<StagedEvent> events = new ArrayList<>();
        stream.forEach(events::add);
        assertEquals(1, events.size());
        StreamError error = events.get(0).error().orElseThrow();
        assertEquals("insufficient_context", error.code());
        assertEquals("selector", error.source());
        assertFalse(events.get(0).envelope().isPresent());
        assertFalse(stream.lastEnvelope().isPresent());
    }

    @ParameterizedTest
    @ValueSource(strings = {"[1,2]", "\"text\"", "42", "null", "true", "plain text delta", "{\"answer\":", ""})
    void dataThatIsNotAJsonObjectThrows(String data) {
        StagedStream stream = streamOf("event: answer_done\ndata: " + data + "\n\nevent: done\ndata: " + DONE + "\n\n");
        HubProtocolException e = assertThrows(HubProtocolException.class, () -> names(stream));
        assertTrue(e.getMessage().contains("not a JSON object"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        // The retired wire: indepth_done data was the In-Depth object itself (clients.md §2.3's test string).
        "event:indepth_done\ndata: {\"status\":\"complete\",\"answer\":\"retired wire\"}\n\n",
        "event: indepth_pending\ndata: {\"messageId\":null,\"answer\":\"A\"}\n\n",
        "event: indepth_error\ndata: {\"answer\":\"A\",\"inDepth\":\"failed\"}\n\n",
        "event: done\ndata: {\"answer\":\"A\",\"inDepthAnswer\":\"- claim\"}\n\n",
        "event: answer_done\ndata: {\"answer\":\"A\",\"in_depth\":\"- claim\"}\n\n",
        "event: done\ndata: {\"answer\":\"A\",\"status\":\"complete\",\"inDepth\":{\"status\":\"complete\",\"answer\":\"\",\"error\":\"\"}}\n\n",
        "event: indepth_error\ndata: {\"answer\":\"A\",\"error\":\"In-Depth was not generated.\",\"inDepth\":{\"status\":\"needs_review\",\"answer\":\"\",\"error\":\"x\"}}\n\n",
        "event: indepth_done\ndata: {\"answer\":\"A\",\"validation\":null,\"inDepth\":{\"status\":\"complete\",\"answer\":\"\",\"error\":\"\"}}\n\n",
        "event: answer_validation\ndata: {\"answer\":\"A\",\"inDepthStatus\":\"pending\"}\n\n",
    })
    void retiredFlattenedInDepthShapeIsRejected(String body) {
        HubProtocolException e = assertThrows(HubProtocolException.class, () -> names(streamOf(body)));
        assertTrue(e.getMessage().startsWith("Failed to parse in-depth response"), e.getMessage());
    }

    @Test
    void profilesWithoutInDepthHaveNoInDepthKeyAndPass() {
        String fast = "{\"answer\":\"A\",\"references\":[]}";
        StagedStream stream = streamOf("event: answer_done\ndata: " + fast + "\n\nevent: done\ndata: " + fast + "\n\n");
        assertEquals(List.of("answer_done", "done"), names(stream));
        assertFalse(stream.lastEnvelope().orElseThrow().inDepth().isPresent());
    }

    @Test
    void forgedEventLineInsideModelTextStaysData() {
        String forged = "Weight 71 kg [3].\n\nevent: done\ndata: {\"answer\":\"forged\"}\r\revent: done";
        String escaped = forged.replace("\"", "\\\"").replace("\n", "\\n").replace("\r", "\\r");
        String data = "{\"answer\":\"" + escaped + "\",\"references\":[]}";
        StagedStream stream = streamOf("event: answer_done\ndata: " + data + "\n\nevent: done\ndata: " + data + "\n\n");
        assertEquals(List.of("answer_done", "done"), names(stream));
        assertEquals(forged, stream.lastEnvelope().orElseThrow().answer());
    }

    @Test
    void aStreamEndingWithoutTerminalThrows() {
        StagedStream stream = streamOf("event: answer_done\ndata: " + PENDING + "\n\n");
        List<String> seen = new ArrayList<>();
        HubProtocolException e = assertThrows(HubProtocolException.class, () -> {
            for (StagedEvent event : stream) seen.add(event.name());
        });
        assertEquals(List.of("answer_done"), seen);
        assertTrue(e.getMessage().contains("without a done or error"));
    }

    @Test
    void aTrailingDoneWithoutBlankLineCompletesTheStream() {
        assertEquals(List.of("answer_done", "done"), names(streamOf("event: answer_done\ndata: " + PENDING + "\n\nevent: done\ndata: " + DONE)));
    }

    @Test
    void unknownEventsPassThroughUnchecked() {
        assertEquals(List.of("stream_cancelled", "done"), names(streamOf("event: stream_cancelled\ndata: {\"status\":\"x\"}\n\nevent: done\ndata: " + DONE + "\n\n")));
    }

    @Test
    void cancelEndsIterationQuietly() {
        StagedStream stream = streamOf("event: answer_done\ndata: " + PENDING + "\n\nevent: done\ndata: " + DONE + "\n\n");
        List<String> seen = new ArrayList<>();
        for (StagedEvent event : stream) {
            seen.add(event.name());
            stream.cancel();
        }
        assertEquals(List.of("answer_done"), seen);
        assertTrue(stream.isCancelled());
    }

    @Test
    void aStreamIsIteratedOnce() {
        StagedStream stream = streamOf("event: done\ndata: " + DONE + "\n\n");
        stream.iterator();
        assertThrows(IllegalStateException.class, stream::iterator);
    }
}
