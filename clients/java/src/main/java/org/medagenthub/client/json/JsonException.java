package org.medagenthub.client.json;

/** Text that is not JSON (RFC 8259), or a value that cannot be written as JSON. */
public final class JsonException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public JsonException(String message) {
        super(message);
    }
}
