package org.medagenthub.client;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.medagenthub.client.envelope.Envelope;
import org.medagenthub.client.errors.HubProtocolException;
import org.medagenthub.client.json.Json;
import org.medagenthub.client.json.JsonException;
import org.medagenthub.client.json.JsonValues;

/**
 * Client of a Med Agent Hub: the profile catalogue, blocking chat and staged streams.
 *
 * <pre>{@code
 * MedAgentHub hub = MedAgentHub.builder().baseUrl("http://localhost:8080").apiKey(key).build();
 * try (StagedStream stream = hub.stream(request)) {
 *     for (StagedEvent event : stream) { … }
 * }
 * }</pre>
 *
 * Failures are exceptions under {@code org.medagenthub.client.errors}: one class per HTTP status (mapped in
 * {@code ApiErrors}), {@code ConnectionException} without a response, {@code HubProtocolException} for a
 * wire the contract forbids.
 */
public final class MedAgentHub {
    private final HubTransport transport;
    private final HubTransport streamTransport;

    private MedAgentHub(Builder b) {
        HttpClient http = b.httpClient != null ? b.httpClient : HttpClient.newBuilder()
                // HTTP/1.1 as the ChartSearchAI module pins it: closing a stream closes its connection, which the hub sees as cancellation.
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(b.connectTimeout)
                .build();
        this.transport = new HubTransport(http, b.baseUrl, b.apiKey, b.timeout);
        this.streamTransport = new HubTransport(http, b.baseUrl, b.apiKey, b.streamHeadersTimeout);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** {@code GET /v1/models}: the configured profiles in the hub's order (legs are callable but never listed). */
    public List<ModelInfo> models() {
        Object json = transport.getJson("/v1/models");
        if (!(json instanceof Map)) throw new HubProtocolException("/v1/models did not answer a JSON object");
        @SuppressWarnings("unchecked")
        Map<String, Object> list = (Map<String, Object>) json;
        if (!(list.get("data") instanceof List)) throw new HubProtocolException("/v1/models has no data list");
        List<ModelInfo> out = new ArrayList<>();
        for (Map<String, Object> item : JsonValues.objects(list, "data")) out.add(ModelInfo.of(item));
        return Collections.unmodifiableList(out);
    }

    /** A blocking turn ({@code stream: false}): the product envelope of a product profile, else the leg envelope. */
    public Envelope ask(ChatRequest request) {
        return askCompletion(request).envelope();
    }

    /** A blocking turn with the {@code chat.completion} around its envelope (id, model, usage). */
    public ChatCompletion askCompletion(ChatRequest request) {
        Object json = transport.postJson("/v1/chat/completions", request.toJson(false));
        if (!(json instanceof Map)) throw new HubProtocolException("the chat completion is not a JSON object");
        @SuppressWarnings("unchecked")
        Map<String, Object> completion = (Map<String, Object>) json;
        return new ChatCompletion(completion, Envelope.of(envelopeOf(completion)));
    }

    /**
     * A staged turn ({@code stream: true}) of a product profile. Returns once the hub has sent its headers (it
     * does so before any context work); a refusal before that (404, 401, 422 …) is thrown here. Close the
     * stream, or use try-with-resources, when you stop reading early: that aborts the request.
     */
    public StagedStream stream(ChatRequest request) {
        return new StagedStream(streamTransport.postForEvents("/v1/chat/completions", request.toJson(true)));
    }

    /** {@code choices[0].message.content}, which the hub sends as the envelope's JSON text. */
    private static Map<String, Object> envelopeOf(Map<String, Object> completion) {
        List<Map<String, Object>> choices = JsonValues.objects(completion, "choices");
        Map<String, Object> message = choices.isEmpty() ? null : JsonValues.object(choices.get(0), "message");
        String content = JsonValues.string(message, "content");
        if (content == null) throw new HubProtocolException("the chat completion has no choices[0].message.content string");
        try {
            return Json.parseObject(content);
        } catch (JsonException e) {
            throw new HubProtocolException("choices[0].message.content is not a JSON envelope: " + e.getMessage(), e);
        }
    }

    public static final class Builder {
        private String baseUrl;
        private String apiKey;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration streamHeadersTimeout = Duration.ofSeconds(30);
        private Duration timeout;
        private HttpClient httpClient;

        /** The hub's base URL, e.g. {@code http://localhost:8080} (without {@code /v1}). */
        public Builder baseUrl(String baseUrl) {
            this.baseUrl = baseUrl;
            return this;
        }

        /** Sent as {@code Authorization: Bearer <key>} when the hub has {@code HUB_API_KEYS}. */
        public Builder apiKey(String apiKey) {
            this.apiKey = apiKey;
            return this;
        }

        /** Connect timeout (default 10 s, as the ChartSearchAI module). */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = Objects.requireNonNull(connectTimeout);
            return this;
        }

        /** How long a stream waits for response headers (default 30 s, as the module); the body has no deadline. */
        public Builder streamHeadersTimeout(Duration timeout) {
            this.streamHeadersTimeout = timeout;
            return this;
        }

        /**
         * How long {@code models()} and {@code ask()} wait for the response headers (default: no limit). A blocking
         * turn sends its headers only when the whole turn is done, which can take minutes on big models.
         */
        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        /** Your own {@link HttpClient} (proxy, TLS, executor); the connect timeout above is then yours to set. */
        public Builder httpClient(HttpClient httpClient) {
            this.httpClient = httpClient;
            return this;
        }

        public MedAgentHub build() {
            if (baseUrl == null || baseUrl.isBlank()) throw new IllegalStateException("baseUrl is required");
            return new MedAgentHub(this);
        }
    }
}
