package org.medagenthub.client.errors;

/**
 * HTTP 422 {@code insufficient_context}: the prompt and the mandatory evidence do not fit the model's
 * window. {@link #detail()} says which {@code source} refused and, when the hub knows, the ids that could
 * not fit.
 */
public class InsufficientContextException extends UnprocessableEntityException {
    private static final long serialVersionUID = 1L;

    public InsufficientContextException(ApiException parsed) {
        super(parsed);
    }
}
