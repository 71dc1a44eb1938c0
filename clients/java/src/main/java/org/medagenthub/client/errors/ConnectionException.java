package org.medagenthub.client.errors;

/** No HTTP response: the hub could not be reached, the connection broke, or no headers came in time. */
public class ConnectionException extends MedAgentHubException {
    private static final long serialVersionUID = 1L;

    public ConnectionException(String message, Throwable cause) {
        super(message, cause);
    }
}
