package org.medagenthub.client.errors;

/** HTTP 5xx: other than 503: a failure inside the hub or of its model backend. */
public class InternalServerException extends ApiException {
    private static final long serialVersionUID = 1L;

    public InternalServerException(ApiException parsed) {
        super(parsed);
    }
}
