package org.medagenthub.client;

import java.util.Map;
import org.medagenthub.client.json.JsonValues;

/**
 * One entry of {@code GET /v1/models} (hub-contract §2.2). Route on {@code staged} (product profiles stream
 * staged events), never on id prefixes; {@code isDefault} marks the one default product profile.
 */
public record ModelInfo(String id, String label, boolean staged, boolean available, boolean isDefault, String visibility, Map<String, Object> raw) {

    static ModelInfo of(Map<String, Object> json) {
        return new ModelInfo(
                JsonValues.string(json, "id"),
                JsonValues.string(json, "label"),
                Boolean.TRUE.equals(JsonValues.bool(json, "staged")),
                Boolean.TRUE.equals(JsonValues.bool(json, "available")),
                Boolean.TRUE.equals(JsonValues.bool(json, "default")),
                JsonValues.string(json, "visibility"),
                json);
    }
}
