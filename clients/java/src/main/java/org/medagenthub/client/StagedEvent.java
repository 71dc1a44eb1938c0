package org.medagenthub.client;

import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import org.medagenthub.client.envelope.ProductEnvelope;

/**
 * One event of a staged stream (hub-contract §3.3): {@code answer_done}, {@code answer_validation},
 * {@code indepth_pending}, {@code indepth_done} or {@code indepth_error}, each carrying the complete current
 * envelope; then the terminal {@code done} (final envelope) or {@code error} ({@link StreamError}).
 * Event names the client does not know are passed on as they came.
 */
public final class StagedEvent {
    public static final String ANSWER_DONE = "answer_done";
    public static final String ANSWER_VALIDATION = "answer_validation";
    public static final String INDEPTH_PENDING = "indepth_pending";
    public static final String INDEPTH_DONE = "indepth_done";
    public static final String INDEPTH_ERROR = "indepth_error";
    public static final String DONE = "done";
    public static final String ERROR = "error";

    private final String name;
    private final Map<String, Object> data;

    StagedEvent(String name, Map<String, Object> data) {
        this.name = name;
        this.data = Collections.unmodifiableMap(data);
    }

    public String name() {
        return name;
    }

    /** The event's JSON object as sent. */
    public Map<String, Object> data() {
        return data;
    }

    /** {@code done} or {@code error}: nothing follows it. */
    public boolean isTerminal() {
        return DONE.equals(name) || ERROR.equals(name);
    }

    /** The envelope this event carries: present when its data has a string {@code answer} (the module's rule), so never on {@code error}. */
    public Optional<ProductEnvelope> envelope() {
        return !ERROR.equals(name) && data.get("answer") instanceof String ? Optional.of(new ProductEnvelope(data)) : Optional.empty();
    }

    /** The terminal {@code error} event's data. */
    public Optional<StreamError> error() {
        return ERROR.equals(name) ? Optional.of(StreamError.of(data)) : Optional.empty();
    }

    @Override
    public String toString() {
        return "StagedEvent[" + name + "]";
    }
}
