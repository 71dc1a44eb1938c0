package org.medagenthub.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.medagenthub.client.envelope.ProductEnvelope;
import org.medagenthub.client.errors.ConnectionException;
import org.medagenthub.client.errors.HubProtocolException;
import org.medagenthub.client.sse.SseFrame;
import org.medagenthub.client.sse.SseReader;

/**
 * A staged chat stream: iterate it for the events, in order, up to and including the terminal {@code done}
 * or {@code error}. Reading stops there and the response is closed.
 *
 * <p>Leaving early must go through {@link #close()} (try-with-resources does it) or {@link #cancel()}: both
 * abort the HTTP request, which the hub takes as cancellation and which frees its model slot. {@link #cancel()}
 * may be called from another thread; the iteration then ends without an exception.
 *
 * <p>A stream that ends before its terminal event throws {@link HubProtocolException}; a connection that
 * breaks throws {@link ConnectionException}; data the contract forbids throws {@link HubProtocolException}.
 */
public final class StagedStream implements Iterable<StagedEvent>, AutoCloseable {
    private final InputStream body;
    private final SseReader reader;
    private volatile boolean closed;
    private volatile boolean cancelled;
    private boolean iterated;
    private StagedEvent terminal;
    private ProductEnvelope lastEnvelope;

    StagedStream(InputStream body) {
        this.body = body;
        this.reader = new SseReader(new InputStreamReader(body, StandardCharsets.UTF_8));
    }

    /** The events; a stream can be iterated once. */
    @Override
    public synchronized Iterator<StagedEvent> iterator() {
        if (iterated) throw new IllegalStateException("a staged stream can be iterated once");
        iterated = true;
        return new Events();
    }

    /** Aborts the HTTP request (the hub frees the model slot); an iteration in progress ends. */
    public void cancel() {
        cancelled = true;
        close();
    }

    /** Closes the response; before the terminal event this aborts the request like {@link #cancel()}. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        try {
            body.close();
        } catch (IOException ignored) {
            // Closing is how the request is aborted: a failure to close cleanly changes nothing for the caller.
        }
    }

    public boolean isCancelled() {
        return cancelled;
    }

    /** Heartbeat comments ({@code : hb}) read so far: the hub's sign of life while a stage is silent. */
    public int heartbeats() {
        return reader.heartbeats();
    }

    /** The terminal event, once read. */
    public Optional<StagedEvent> terminal() {
        return Optional.ofNullable(terminal);
    }

    /** The last envelope read so far (every event carries the complete current state). */
    public Optional<ProductEnvelope> lastEnvelope() {
        return Optional.ofNullable(lastEnvelope);
    }

    private final class Events implements Iterator<StagedEvent> {
        private StagedEvent next;
        private boolean finished;

        @Override
        public boolean hasNext() {
            if (next != null) return true;
            if (finished) return false;
            if (closed) return finish();
            SseFrame frame;
            try {
                frame = reader.next();
            } catch (IOException e) {
                if (closed) return finish(); // our own close() or cancel() ended the read
                finish();
                throw new ConnectionException("the staged stream broke before its terminal event: " + e.getMessage(), e);
            }
            if (frame == null) {
                finish();
                throw new HubProtocolException("the staged stream ended without a done or error event");
            }
            try {
                next = StagedEventDecoder.decode(frame);
            } catch (HubProtocolException e) {
                finish();
                throw e;
            }
            next.envelope().ifPresent(envelope -> lastEnvelope = envelope);
            if (next.isTerminal()) terminal = next;
            return true;
        }

        @Override
        public StagedEvent next() {
            if (!hasNext()) throw new NoSuchElementException();
            StagedEvent event = next;
            next = null;
            // Reading stops at the first terminal event: anything after it is never read.
            if (event.isTerminal()) finish();
            return event;
        }

        private boolean finish() {
            finished = true;
            close();
            return false;
        }
    }
}
