package org.medagenthub.client.errors;

/** HTTP 429: a quota is spent; see retryAfterSeconds(). */
public class RateLimitException extends ApiException {
    private static final long serialVersionUID = 1L;

    public RateLimitException(ApiException parsed) {
        super(parsed);
    }
}
