package org.medagenthub.client.sse;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads SSE frames the way the ChartSearchAI module does (clients.md §2.1), incrementally, so a frame is
 * handed out as soon as its blank line arrives:
 * <ul>
 *   <li>lines end at CR, LF or CRLF ({@link BufferedReader#readLine} splits on all three, also when a CRLF
 *       straddles two reads);</li>
 *   <li>{@code event:} sets the name, trimmed; {@code data:} lines lose one leading space and join with LF;</li>
 *   <li>a blank line dispatches; a frame without any {@code data:} line is empty and dropped;</li>
 *   <li>a frame still open when the body ends is dispatched (a hub cut right after its last line loses nothing);</li>
 *   <li>lines starting with {@code :} are heartbeats: counted, never frames;</li>
 *   <li>other fields ({@code id:}, {@code retry:}) and stray lines carry nothing the client reads.</li>
 * </ul>
 * A forged {@code event: done} inside model text cannot open a frame here: the hub writes each payload as
 * one JSON line, so the CR/LF in the text arrives escaped inside the JSON string.
 */
public final class SseReader {
    private final BufferedReader lines;
    /** Volatile: another thread (a watchdog, a UI) may read the count while the reader blocks. */
    private volatile int heartbeats;
    private boolean ended;

    public SseReader(Reader source) {
        this.lines = source instanceof BufferedReader ? (BufferedReader) source : new BufferedReader(source);
    }

    /** The next frame, or null once the body has ended and no frame is left. */
    public SseFrame next() throws IOException {
        if (ended) return null;
        String name = null;
        List<String> data = new ArrayList<>();
        String line;
        while ((line = lines.readLine()) != null) {
            if (line.isEmpty()) {
                if (!data.isEmpty()) return frame(name, data);
                name = null; // an empty frame: dropped, and its name does not leak into the next one
            } else if (line.startsWith(":")) {
                heartbeats++;
            } else if (line.startsWith("event:")) {
                name = line.substring("event:".length()).trim();
            } else if (line.startsWith("data:")) {
                String value = line.substring("data:".length());
                data.add(value.startsWith(" ") ? value.substring(1) : value);
            }
        }
        ended = true;
        return data.isEmpty() ? null : frame(name, data);
    }

    /** Comment lines ({@code : hb}) read so far. */
    public int heartbeats() {
        return heartbeats;
    }

    private static SseFrame frame(String name, List<String> data) {
        return new SseFrame(name == null || name.isEmpty() ? "message" : name, String.join("\n", data));
    }
}
