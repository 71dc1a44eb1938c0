package org.medagenthub.client.errors;

/** HTTP 503: the hub or its backend is busy, loading, stopping or a context source is unavailable (retryable codes). */
public class ServiceUnavailableException extends ApiException {
    private static final long serialVersionUID = 1L;

    public ServiceUnavailableException(ApiException parsed) {
        super(parsed);
    }
}
