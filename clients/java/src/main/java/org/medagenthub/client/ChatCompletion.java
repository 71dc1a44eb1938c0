package org.medagenthub.client;

import java.util.Collections;
import java.util.Map;
import org.medagenthub.client.envelope.Envelope;
import org.medagenthub.client.json.JsonValues;

/** A blocking {@code chat.completion} (hub-contract §2.1) and the envelope its message content holds. */
public record ChatCompletion(Map<String, Object> raw, Envelope envelope) {

    public ChatCompletion {
        raw = Collections.unmodifiableMap(raw);
    }

    public String id() {
        return JsonValues.string(raw, "id");
    }

    /** The request's model, verbatim. */
    public String model() {
        return JsonValues.string(raw, "model");
    }

    /** {@code usage}: the router's prompt and completion tokens summed over every model call of the turn. */
    public Map<String, Object> usage() {
        Map<String, Object> usage = JsonValues.object(raw, "usage");
        return usage == null ? Collections.emptyMap() : usage;
    }
}
