package org.medagenthub.client;

import java.util.Map;
import org.medagenthub.client.json.JsonValues;

/**
 * The data of a staged stream's terminal {@code event: error} ({@code {code, source, message}}, §3.1): the
 * turn ended without an Answer, e.g. {@code insufficient_context} from {@code selector}. It is the stream's
 * last event, not an exception: the HTTP status was already 200.
 */
public record StreamError(String code, String source, String message, Map<String, Object> raw) {

    static StreamError of(Map<String, Object> json) {
        return new StreamError(JsonValues.string(json, "code"), JsonValues.string(json, "source"), JsonValues.string(json, "message"), json);
    }
}
