package org.medagenthub.client.envelope;

import java.util.Map;
import org.medagenthub.client.json.JsonValues;

/**
 * {@code inDepth} (§3.5), the only place In-Depth state lives. {@code status}: {@code pending},
 * {@code complete}, {@code needs_review}, {@code failed}; {@code answer} is markdown bullets ({@code ""} while
 * pending or after an error); {@code error} is {@code ""} or a human message.
 */
public record InDepth(String status, String answer, String error, Map<String, Object> raw) {

    static InDepth of(Map<String, Object> json) {
        return new InDepth(JsonValues.string(json, "status"), JsonValues.string(json, "answer"), JsonValues.string(json, "error"), json);
    }
}
