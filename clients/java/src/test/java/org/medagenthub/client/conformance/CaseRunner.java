package org.medagenthub.client.conformance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.medagenthub.client.ChatRequest;
import org.medagenthub.client.MedAgentHub;
import org.medagenthub.client.ModelInfo;
import org.medagenthub.client.StagedEvent;
import org.medagenthub.client.StagedStream;
import org.medagenthub.client.StreamError;
import org.medagenthub.client.envelope.AnswerValidation;
import org.medagenthub.client.envelope.Envelope;
import org.medagenthub.client.envelope.InDepth;
import org.medagenthub.client.envelope.ProductEnvelope;
import org.medagenthub.client.envelope.Reference;
import org.medagenthub.client.errors.ApiException;
import org.medagenthub.client.errors.InsufficientContextException;
import org.medagenthub.client.errors.MedAgentHubException;
import org.medagenthub.client.json.JsonValues;

/** Performs one case's {@code op} through the public client API and describes what it saw (the observation). */
final class CaseRunner {
    private final MedAgentHub hub;
    private final Map<String, Object> op;

    CaseRunner(String hubUrl, Map<String, Object> testCase) {
        Map<String, Object> client = JsonValues.object(testCase, "client");
        this.hub = MedAgentHub.builder().baseUrl(hubUrl).apiKey(JsonValues.string(client, "apiKey")).build();
        this.op = JsonValues.object(testCase, "op");
        if (op == null || JsonValues.string(op, "kind") == null) throw new IllegalArgumentException("the case has no op.kind");
    }

    Map<String, Object> run() {
        String kind = JsonValues.string(op, "kind");
        try {
            switch (kind) {
                case "models": return models();
                case "ask": return ask();
                case "stream": return stream(false);
                case "abort": return stream(true);
                default: throw new IllegalArgumentException("unknown op.kind '" + kind + "'");
            }
        } catch (MedAgentHubException e) {
            return failure(e);
        }
    }

    private Map<String, Object> models() {
        List<Object> ids = new ArrayList<>();
        for (ModelInfo model : hub.models()) ids.add(model.id());
        Map<String, Object> out = ok();
        out.put("models", ids);
        return out;
    }

    private Map<String, Object> ask() {
        Envelope envelope = hub.ask(request());
        List<Object> references = new ArrayList<>();
        for (Reference reference : envelope.references()) references.add(reference.index());
        Map<String, Object> out = ok();
        out.put("answer", envelope.answer());
        out.put("citations", new ArrayList<Object>(envelope.citations()));
        out.put("references", references);
        out.put("validation", envelope.answerValidation().map(AnswerValidation::status).orElse(null));
        out.put("inDepth", envelope instanceof ProductEnvelope ? inDepthStatus((ProductEnvelope) envelope) : null);
        return out;
    }

    /** {@code stream} closes the stream after {@code breakAfter}; {@code abort} cancels it through the handle. */
    private Map<String, Object> stream(boolean abort) {
        String breakAfter = JsonValues.string(op, "breakAfter");
        if (abort && breakAfter == null) throw new IllegalArgumentException("an abort case needs op.breakAfter");
        List<Object> events = new ArrayList<>();
        StreamError error = null;
        StagedStream stream = hub.stream(request());
        try {
            for (StagedEvent event : stream) {
                events.add(event.name());
                if (event.error().isPresent()) error = event.error().get();
                if (event.name().equals(breakAfter)) {
                    if (abort) stream.cancel();
                    else stream.close();
                    break;
                }
            }
        } finally {
            stream.close();
        }
        Optional<ProductEnvelope> last = stream.lastEnvelope();
        Map<String, Object> out = ok();
        out.put("events", events);
        out.put("answer", last.map(ProductEnvelope::answer).orElse(null));
        out.put("validation", last.flatMap(ProductEnvelope::answerValidation).map(AnswerValidation::status).orElse(null));
        out.put("inDepth", last.map(CaseRunner::inDepthStatus).orElse(null));
        if (error != null) {
            Map<String, Object> errorEvent = new LinkedHashMap<>();
            errorEvent.put("code", error.code());
            errorEvent.put("source", error.source());
            out.put("errorEvent", errorEvent);
        }
        return out;
    }

    private ChatRequest request() {
        Map<String, Object> body = JsonValues.object(op, "body");
        if (body == null) throw new IllegalArgumentException("op.body is missing");
        return ChatRequest.of(body);
    }

    private static String inDepthStatus(ProductEnvelope envelope) {
        return envelope.inDepth().map(InDepth::status).orElse(null);
    }

    private static Map<String, Object> failure(MedAgentHubException e) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("kind", e.kind());
        if (e instanceof ApiException) {
            ApiException api = (ApiException) e;
            error.put("status", api.status());
            error.put("code", api.code());
            if (api instanceof InsufficientContextException) error.put("detail", api.detail());
        } else {
            error.put("message", e.getMessage());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("ok", false);
        out.put("error", error);
        return out;
    }

    private static Map<String, Object> ok() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("ok", true);
        return out;
    }
}
