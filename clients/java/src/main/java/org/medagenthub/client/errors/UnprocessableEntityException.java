package org.medagenthub.client.errors;

/** HTTP 422: a 422 other than insufficient_context. */
public class UnprocessableEntityException extends ApiException {
    private static final long serialVersionUID = 1L;

    public UnprocessableEntityException(ApiException parsed) {
        super(parsed);
    }
}
