package org.medagenthub.client.errors;

/** HTTP 400: the body is malformed or schema-invalid, or the client requires a product profile. */
public class BadRequestException extends ApiException {
    private static final long serialVersionUID = 1L;

    public BadRequestException(ApiException parsed) {
        super(parsed);
    }
}
