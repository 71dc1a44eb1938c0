package org.medagenthub.client.errors;

/** HTTP 401: the hub has API keys and the request sent none (or a key of the wrong form). */
public class AuthenticationException extends ApiException {
    private static final long serialVersionUID = 1L;

    public AuthenticationException(ApiException parsed) {
        super(parsed);
    }
}
