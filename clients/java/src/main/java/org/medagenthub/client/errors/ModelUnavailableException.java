package org.medagenthub.client.errors;

/** HTTP 503 {@code model_unavailable}: the backend cannot serve this model at all (no file, a failed load); retrying will not help. */
public class ModelUnavailableException extends ServiceUnavailableException {
    private static final long serialVersionUID = 1L;

    public ModelUnavailableException(ApiException parsed) {
        super(parsed);
    }
}
