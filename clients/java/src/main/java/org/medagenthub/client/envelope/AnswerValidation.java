package org.medagenthub.client.envelope;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.medagenthub.client.json.JsonValues;

/**
 * {@code answerValidation} (§7.4). {@code status}: {@code checking} (only on {@code answer_done}),
 * {@code checked}, {@code edited}, {@code needs_review}, {@code unavailable}. {@code originalAnswer} is the
 * writer's first draft when a check changed it (a review artefact, never the shipped Answer), else null.
 */
public record AnswerValidation(String status, String label, String summary, List<Map<String, Object>> issues, String originalAnswer, Map<String, Object> raw) {

    static AnswerValidation of(Map<String, Object> json) {
        return new AnswerValidation(
                JsonValues.string(json, "status"),
                JsonValues.string(json, "label"),
                JsonValues.string(json, "summary"),
                Collections.unmodifiableList(JsonValues.objects(json, "issues")),
                JsonValues.string(json, "originalAnswer"),
                json);
    }
}
