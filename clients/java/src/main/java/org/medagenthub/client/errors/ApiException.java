package org.medagenthub.client.errors;

import java.util.Collections;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A non-2xx HTTP answer. The hub's error bodies carry two shapes (decision 1):
 * {@code {"error": {message, type, param, code}, "detail": {code, message, …}}}; {@link #code()} is
 * {@code detail.code}, else {@code error.code}. Statuses without a subclass of their own (405, 406, 499 …)
 * are thrown as this class ({@code kind} {@code APIError}); {@link ApiErrors#fromResponse} picks the class.
 */
public class ApiException extends MedAgentHubException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;
    private final transient Map<String, Object> detail;
    private final transient Map<String, Object> body;
    private final Long retryAfterSeconds;

    public ApiException(int status, String code, String message, Map<String, Object> detail, Map<String, Object> body, Long retryAfterSeconds) {
        super(message);
        this.status = status;
        this.code = code;
        this.detail = detail == null ? Collections.emptyMap() : Collections.unmodifiableMap(detail);
        this.body = body == null ? Collections.emptyMap() : Collections.unmodifiableMap(body);
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** Copies another instance's fields: how {@link ApiErrors} builds each subclass from one parsed answer. */
    protected ApiException(ApiException parsed) {
        this(parsed.status, parsed.code, parsed.getMessage(), parsed.detail, parsed.body, parsed.retryAfterSeconds);
    }

    public int status() {
        return status;
    }

    /** {@code detail.code} (else {@code error.code}); null when the body carried neither. */
    public String code() {
        return code;
    }

    /** The {@code detail} object of the body (empty when absent). */
    public Map<String, Object> detail() {
        return detail;
    }

    /** The whole parsed JSON body (empty when the body was not a JSON object). */
    public Map<String, Object> body() {
        return body;
    }

    /** {@code Retry-After} in seconds, when the hub sent one (503 {@code router_busy}, 429). */
    public OptionalLong retryAfterSeconds() {
        return retryAfterSeconds == null ? OptionalLong.empty() : OptionalLong.of(retryAfterSeconds);
    }

    @Override
    public String kind() {
        return getClass() == ApiException.class ? "APIError" : super.kind();
    }
}
