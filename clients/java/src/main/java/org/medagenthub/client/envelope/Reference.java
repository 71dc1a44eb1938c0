package org.medagenthub.client.envelope;

import java.util.Map;
import org.medagenthub.client.json.JsonValues;

/**
 * One reference (hub-contract §8). {@code resolutionStatus}: {@code resolved}|{@code unresolved};
 * {@code groundingStatus}: {@code checking}|{@code verified}|{@code unsupported}|{@code mixed}|{@code unchecked};
 * {@code grounded} is null while unchecked; {@code support} carries the precise facts-first verdict when set.
 */
public record Reference(
        int index,
        String sourceId,
        String source,
        String resourceType,
        String date,
        String title,
        String resolutionStatus,
        String groundingStatus,
        Boolean grounded,
        String support,
        Map<String, Object> raw) {

    static Reference of(Map<String, Object> json) {
        Integer index = JsonValues.integer(json, "index");
        return new Reference(
                index == null ? -1 : index,
                JsonValues.string(json, "sourceId"),
                JsonValues.string(json, "source"),
                JsonValues.string(json, "resourceType"),
                JsonValues.string(json, "date"),
                JsonValues.string(json, "title"),
                JsonValues.string(json, "resolutionStatus"),
                JsonValues.string(json, "groundingStatus"),
                JsonValues.bool(json, "grounded"),
                JsonValues.string(json, "support"),
                json);
    }

    public boolean isResolved() {
        return "resolved".equals(resolutionStatus);
    }

    /** Whether the Answer itself or one of its table blocks uses this reference (the hub's {@code citations} rule). */
    boolean citedByAnswer() {
        for (Map<String, Object> usage : JsonValues.objects(raw, "usage")) {
            String location = JsonValues.string(usage, "location");
            if ("answer".equals(location) || "block".equals(location)) return true;
        }
        return false;
    }
}
