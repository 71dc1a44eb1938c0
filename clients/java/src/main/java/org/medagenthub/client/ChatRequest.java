package org.medagenthub.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A {@code POST /v1/chat/completions} body without {@code stream} (the client sets it: {@code false} for
 * {@link MedAgentHub#ask}, {@code true} for {@link MedAgentHub#stream}). Build one with {@link #builder()},
 * or wrap a body you already hold as JSON with {@link #of(Map)}.
 */
public final class ChatRequest {
    private final Map<String, Object> body;

    private ChatRequest(Map<String, Object> body) {
        this.body = Collections.unmodifiableMap(body);
    }

    /** A body as parsed JSON (e.g. {@code {"model": …, "messages": […], "patient": …}}); a {@code stream} key in it is replaced. */
    public static ChatRequest of(Map<String, Object> body) {
        return new ChatRequest(new LinkedHashMap<>(Objects.requireNonNull(body, "body")));
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The body as sent, with {@code stream} set. */
    Map<String, Object> toJson(boolean stream) {
        Map<String, Object> out = new LinkedHashMap<>(body);
        out.put("stream", stream);
        return out;
    }

    public Map<String, Object> body() {
        return body;
    }

    public static final class Builder {
        private final Map<String, Object> body = new LinkedHashMap<>();
        private final List<Object> messages = new ArrayList<>();
        private final Map<String, Object> context = new LinkedHashMap<>();

        /** A product profile id (e.g. {@code single-12b-bare}) or a low-level leg (e.g. {@code answer:gemma-4-12b~off}). */
        public Builder model(String model) {
            body.put("model", model);
            return this;
        }

        public Builder message(String role, String content) {
            Map<String, Object> message = new LinkedHashMap<>();
            message.put("role", role);
            message.put("content", content);
            messages.add(message);
            return this;
        }

        public Builder user(String content) {
            return message("user", content);
        }

        public Builder assistant(String content) {
            return message("assistant", content);
        }

        /** Patient id (an OpenMRS patient UUID): the hub reads the chart from its patient source (QueryStore). */
        public Builder patient(String patient) {
            body.put("patient", patient);
            return this;
        }

        /** A {@code context} key: {@code source}, {@code sources}, {@code require_product_profile}, {@code session}, {@code request_id} … */
        public Builder context(String key, Object value) {
            context.put(key, value);
            return this;
        }

        /** Any other top-level body field ({@code temperature}, {@code max_tokens}, {@code response_format} …). */
        public Builder field(String key, Object value) {
            body.put(key, value);
            return this;
        }

        public ChatRequest build() {
            if (!(body.get("model") instanceof String)) throw new IllegalStateException("a chat request needs a model");
            if (messages.isEmpty()) throw new IllegalStateException("a chat request needs at least one message");
            Map<String, Object> out = new LinkedHashMap<>(body);
            out.put("messages", new ArrayList<>(messages));
            if (!context.isEmpty()) out.put("context", new LinkedHashMap<>(context));
            return new ChatRequest(out);
        }
    }
}
