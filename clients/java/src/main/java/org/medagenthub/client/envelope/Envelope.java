package org.medagenthub.client.envelope;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a chat turn answers: the staged product envelope of a product profile, or the result of a leg or
 * plain profile (hub-contract §3.4–3.8). {@link #raw()} keeps every key verbatim, known or not, so a field
 * this client does not type yet is still there (the ChartSearchAI module relays envelopes the same way).
 */
public sealed interface Envelope permits ProductEnvelope, LegEnvelope {
    /** The Answer prose with its {@code [N]} markers. */
    String answer();

    /** Indices of the references the Answer (and its table blocks) cite, in reference order. */
    List<Integer> citations();

    /** Resolved references; empty for a leg that resolves none. */
    List<Reference> references();

    /** Table blocks, as the hub sent them. */
    List<Map<String, Object>> blocks();

    /** The Answer check (§7.4), when the profile ran one. */
    Optional<AnswerValidation> answerValidation();

    /** The whole envelope as parsed JSON. */
    Map<String, Object> raw();

    /**
     * A blocking answer's envelope: a product envelope when it carries the drug-safety object every product
     * envelope has ({@code safetyCheck}, required by the hub's ProductEnvelope schema and absent from the leg
     * schema), else a leg envelope.
     */
    static Envelope of(Map<String, Object> json) {
        return json.get("safetyCheck") instanceof Map ? new ProductEnvelope(json) : new LegEnvelope(json);
    }
}
