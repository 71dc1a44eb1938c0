package org.medagenthub.client.envelope;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.medagenthub.client.json.JsonValues;

/** Reads shared by both envelope kinds. */
final class EnvelopeParts {
    private EnvelopeParts() {}

    static List<Reference> references(Map<String, Object> json) {
        List<Reference> out = new ArrayList<>();
        for (Map<String, Object> item : JsonValues.objects(json, "references")) out.add(Reference.of(item));
        return Collections.unmodifiableList(out);
    }

    /** {@code citations} as sent; without it (staged events carry none) the hub's own rule from the references (§3.6). */
    static List<Integer> citations(Map<String, Object> json, List<Reference> references) {
        if (json.get("citations") instanceof List) return Collections.unmodifiableList(JsonValues.integers(json, "citations"));
        List<Integer> out = new ArrayList<>();
        for (Reference reference : references) if (reference.citedByAnswer()) out.add(reference.index());
        return Collections.unmodifiableList(out);
    }

    static List<Map<String, Object>> blocks(Map<String, Object> json) {
        return Collections.unmodifiableList(JsonValues.objects(json, "blocks"));
    }

    static Optional<AnswerValidation> answerValidation(Map<String, Object> json) {
        return Optional.ofNullable(JsonValues.object(json, "answerValidation")).map(AnswerValidation::of);
    }

    static String answer(Map<String, Object> json) {
        String answer = JsonValues.string(json, "answer");
        return answer == null ? "" : answer;
    }
}
