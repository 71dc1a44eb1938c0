package org.medagenthub.client.errors;

/** HTTP 413: the body is over the hub's HUB_MAX_BODY_BYTES. */
public class RequestTooLargeException extends ApiException {
    private static final long serialVersionUID = 1L;

    public RequestTooLargeException(ApiException parsed) {
        super(parsed);
    }
}
