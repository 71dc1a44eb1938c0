package org.medagenthub.client.errors;

import java.util.Map;
import org.medagenthub.client.json.Json;
import org.medagenthub.client.json.JsonException;
import org.medagenthub.client.json.JsonValues;

/** The one place where an HTTP status (and {@code detail.code}) becomes an exception class. */
public final class ApiErrors {
    private ApiErrors() {}

    /** The exception for a non-2xx answer; {@code bodyText} may be anything, {@code retryAfter} the raw header or null. */
    public static ApiException fromResponse(int status, String bodyText, String retryAfter) {
        Map<String, Object> body = parseBody(bodyText);
        Map<String, Object> detail = JsonValues.object(body, "detail");
        Map<String, Object> error = JsonValues.object(body, "error");
        String code = firstNonBlank(JsonValues.string(detail, "code"), JsonValues.string(error, "code"));
        String message = firstNonBlank(JsonValues.string(error, "message"), JsonValues.string(detail, "message"));
        if (message == null) message = "HTTP " + status + (code == null ? "" : " " + code);
        ApiException parsed = new ApiException(status, code, message, detail, body, seconds(retryAfter));
        return classify(parsed, JsonValues.string(error, "code"));
    }

    /**
     * {@code errorCode} is {@code error.code}: a client family may pin another {@code detail.code} for the same
     * failure (Catalyst's 422 says {@code context_window_exceeded} there), so either code names the class.
     */
    private static ApiException classify(ApiException e, String errorCode) {
        switch (e.status()) {
            case 400: return new BadRequestException(e);
            case 401: return new AuthenticationException(e);
            case 403: return new PermissionDeniedException(e);
            case 404: return new NotFoundException(e);
            case 413: return new RequestTooLargeException(e);
            case 422: return isCode(e, errorCode, "insufficient_context") ? new InsufficientContextException(e) : new UnprocessableEntityException(e);
            case 429: return new RateLimitException(e);
            case 503: return isCode(e, errorCode, "model_unavailable") ? new ModelUnavailableException(e) : new ServiceUnavailableException(e);
            default: return e.status() >= 500 ? new InternalServerException(e) : e;
        }
    }

    private static boolean isCode(ApiException e, String errorCode, String code) {
        return code.equals(e.code()) || code.equals(errorCode);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> parseBody(String text) {
        if (text == null || text.isBlank()) return null;
        try {
            Object value = Json.parse(text);
            return JsonValues.isObject(value) ? (Map<String, Object>) value : null;
        } catch (JsonException notJson) {
            return null; // a proxy's HTML page or a truncated body: the status still decides the class
        }
    }

    private static Long seconds(String retryAfter) {
        if (retryAfter == null) return null;
        try {
            return Long.parseLong(retryAfter.trim());
        } catch (NumberFormatException httpDate) {
            return null;
        }
    }

    private static String firstNonBlank(String a, String b) {
        if (a != null && !a.isBlank()) return a;
        return b != null && !b.isBlank() ? b : null;
    }
}
