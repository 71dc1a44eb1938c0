package org.medagenthub.client.errors;

/**
 * The hub answered something the wire contract does not allow: SSE data that is not a JSON object, the
 * retired flattened In-Depth shape, a stream that ends without {@code done} or {@code error}, a blocking
 * body that is not a chat completion holding a JSON envelope.
 */
public class HubProtocolException extends MedAgentHubException {
    private static final long serialVersionUID = 1L;

    public HubProtocolException(String message) {
        super(message);
    }

    public HubProtocolException(String message, Throwable cause) {
        super(message, cause);
    }
}
