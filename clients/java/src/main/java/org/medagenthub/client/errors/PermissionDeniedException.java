package org.medagenthub.client.errors;

/** HTTP 403: the API key is not one of the hub's keys. */
public class PermissionDeniedException extends ApiException {
    private static final long serialVersionUID = 1L;

    public PermissionDeniedException(ApiException parsed) {
        super(parsed);
    }
}
