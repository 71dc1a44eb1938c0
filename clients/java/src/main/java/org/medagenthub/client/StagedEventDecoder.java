package org.medagenthub.client;

import java.util.Map;
import java.util.Set;
import org.medagenthub.client.errors.HubProtocolException;
import org.medagenthub.client.json.Json;
import org.medagenthub.client.json.JsonException;
import org.medagenthub.client.sse.SseFrame;

/** Turns an SSE frame into a {@link StagedEvent}, refusing what the deployed clients refuse (clients.md §2.1, §2.3). */
final class StagedEventDecoder {
    private static final Set<String> IN_DEPTH_EVENTS = Set.of(StagedEvent.INDEPTH_PENDING, StagedEvent.INDEPTH_DONE, StagedEvent.INDEPTH_ERROR);
    /** Events whose data is a product envelope; an unknown event is passed on unchecked. */
    private static final Set<String> ENVELOPE_EVENTS = Set.of(
            StagedEvent.ANSWER_DONE, StagedEvent.ANSWER_VALIDATION, StagedEvent.INDEPTH_PENDING, StagedEvent.INDEPTH_DONE, StagedEvent.INDEPTH_ERROR, StagedEvent.DONE);

    /**
     * Top-level keys of the retired flattened In-Depth wire: its {@code indepth_*} data was the In-Depth object
     * itself ({@code status}, {@code answer}, {@code error}, {@code validation}; hub-contract §3.5 [REF-old]),
     * and older front ends read In-Depth from {@code inDepthStatus}/{@code inDepthAnswer}/{@code inDepthError}/
     * {@code in_depth}. The envelope never carries any of them (§3.3: no top-level {@code status}; In-Depth only
     * under {@code inDepth}); the TypeScript client refuses the same set (PROTOCOL.md).
     */
    private static final Set<String> RETIRED_FLAT_KEYS = Set.of("status", "error", "validation", "inDepthStatus", "inDepthAnswer", "inDepthError", "in_depth");

    private StagedEventDecoder() {}

    static StagedEvent decode(SseFrame frame) {
        Map<String, Object> data;
        try {
            data = Json.parseObject(frame.data());
        } catch (JsonException e) {
            throw new HubProtocolException("SSE data of event '" + frame.event() + "' is not a JSON object: " + e.getMessage(), e);
        }
        if (ENVELOPE_EVENTS.contains(frame.event())) rejectRetiredInDepth(frame.event(), data);
        return new StagedEvent(frame.event(), data);
    }

    private static void rejectRetiredInDepth(String event, Map<String, Object> data) {
        Object inDepth = data.get("inDepth");
        boolean inDepthEvent = IN_DEPTH_EVENTS.contains(event);
        if ((inDepthEvent || inDepth != null) && !(inDepth instanceof Map)) {
            throw new HubProtocolException("Failed to parse in-depth response: event '" + event + "' has no inDepth object (the retired flattened In-Depth shape)");
        }
        for (String key : RETIRED_FLAT_KEYS) {
            if (data.containsKey(key)) {
                throw new HubProtocolException("Failed to parse in-depth response: event '" + event + "' carries '" + key + "' at the top level (the retired flattened In-Depth shape)");
            }
        }
    }
}
