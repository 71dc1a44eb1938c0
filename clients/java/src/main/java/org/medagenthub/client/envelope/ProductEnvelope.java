package org.medagenthub.client.envelope;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.medagenthub.client.json.JsonValues;

/**
 * The envelope of a product profile (hub-contract §3.4): the data of every staged event and, with
 * {@code citations}, the blocking answer. Every event carries the complete current state, never a delta.
 */
public final class ProductEnvelope implements Envelope {
    private final Map<String, Object> raw;
    private final List<Reference> references;
    private final List<Integer> citations;

    public ProductEnvelope(Map<String, Object> json) {
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

    /** In-Depth (§3.5); absent for profiles without In-Depth (decision 19). */
    public Optional<InDepth> inDepth() {
        return Optional.ofNullable(JsonValues.object(raw, "inDepth")).map(InDepth::of);
    }

    public Optional<Confidence> confidence() {
        return Optional.ofNullable(JsonValues.object(raw, "confidence")).map(Confidence::of);
    }

    /** The answering profile id. */
    public String model() {
        return JsonValues.string(raw, "model");
    }

    /** Legacy drug-safety status: {@code checked}, {@code limited} or {@code unavailable}; {@link #safetyCheck()} is the full object. */
    public String safetyStatus() {
        return JsonValues.string(raw, "safetyStatus");
    }

    /** The {@code drug_safety.v1} object (§9.6). */
    public Map<String, Object> safetyCheck() {
        return JsonValues.object(raw, "safetyCheck");
    }

    /** The Answer gate's {@code temporal_gate.v1} result (§6.3), once it ran. */
    public Optional<Map<String, Object>> temporalGate() {
        return Optional.ofNullable(JsonValues.object(raw, "temporalGate"));
    }

    /** The context summary {@code context_view.v1} (§5.10), once the context stage ran. */
    public Optional<Map<String, Object>> context() {
        return Optional.ofNullable(JsonValues.object(raw, "context"));
    }

    @Override
    public Map<String, Object> raw() {
        return raw;
    }

    @Override
    public String toString() {
        return "ProductEnvelope" + raw;
    }
}
