package org.medagenthub.client.envelope;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.medagenthub.client.json.JsonValues;

/** The result of a low-level leg or a plain profile (output modes {@code bare}, {@code review}, {@code indepth}; §3.8). */
public final class LegEnvelope implements Envelope {
    private final Map<String, Object> raw;
    private final List<Reference> references;
    private final List<Integer> citations;

    public LegEnvelope(Map<String, Object> json) {
        this.raw = Collections.unmodifiableMap(json);
        this.references = EnvelopeParts.references(json);
        this.citations = EnvelopeParts.citations(json, references);
    }

    @Override
    public String answer() {
        return EnvelopeParts.answer(raw);
    }

    @Override
    public List<Integer> citations() {
        return citations;
    }

    @Override
    public List<Reference> references() {
        return references;
    }

    @Override
    public List<Map<String, Object>> blocks() {
        return EnvelopeParts.blocks(raw);
    }

    @Override
    public Optional<AnswerValidation> answerValidation() {
        return EnvelopeParts.answerValidation(raw);
    }

    /** {@code bare} output only. */
    public Optional<String> safetyStatus() {
        return Optional.ofNullable(JsonValues.string(raw, "safetyStatus"));
    }

    @Override
    public Map<String, Object> raw() {
        return raw;
    }

    @Override
    public String toString() {
        return "LegEnvelope" + raw;
    }
}
