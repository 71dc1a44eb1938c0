package org.medagenthub.client.errors;

/** HTTP 404: unknown model (profile or leg) or route. */
public class NotFoundException extends ApiException {
    private static final long serialVersionUID = 1L;

    public NotFoundException(ApiException parsed) {
        super(parsed);
    }
}
