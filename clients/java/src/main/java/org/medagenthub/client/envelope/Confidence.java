package org.medagenthub.client.envelope;

import java.util.Map;
import java.util.Optional;
import org.medagenthub.client.json.JsonValues;

/**
 * {@code confidence} (§7.8): the Answer's, and In-Depth's once In-Depth is no longer pending. A level is
 * {@code green}, {@code yellow}, {@code red}, or null when the profile ships findings instead of a grade.
 */
public record Confidence(Level answer, Optional<Level> inDepth) {

    public record Level(String level, String note, Map<String, Object> raw) {
        static Level of(Map<String, Object> json) {
            return new Level(JsonValues.string(json, "level"), JsonValues.string(json, "note"), json);
        }
    }

    static Confidence of(Map<String, Object> json) {
        Map<String, Object> answer = JsonValues.object(json, "answer");
        return new Confidence(answer == null ? null : Level.of(answer), Optional.ofNullable(JsonValues.object(json, "in_depth")).map(Level::of));
    }
}
