package org.medagenthub.client.errors;

/**
 * Base of every failure the client reports. {@link #kind()} is the canonical name shared with the
 * TypeScript client (the class name with {@code Exception} read as {@code Error}), so both clients report a
 * failure the same way.
 */
public class MedAgentHubException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MedAgentHubException(String message) {
        super(message);
    }

    public MedAgentHubException(String message, Throwable cause) {
        super(message, cause);
    }

    /** E.g. {@code AuthenticationError} for {@link AuthenticationException}. */
    public String kind() {
        String name = getClass().getSimpleName();
        return name.endsWith("Exception") ? name.substring(0, name.length() - "Exception".length()) + "Error" : name;
    }
}
