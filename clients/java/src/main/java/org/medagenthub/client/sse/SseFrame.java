package org.medagenthub.client.sse;

/** One dispatched SSE frame: its event name (trimmed; {@code message} when the frame named none) and its data lines joined by LF. */
public record SseFrame(String event, String data) {}
