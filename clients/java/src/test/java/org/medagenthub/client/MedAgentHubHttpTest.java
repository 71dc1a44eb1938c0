package org.medagenthub.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.medagenthub.client.envelope.Envelope;
import org.medagenthub.client.envelope.LegEnvelope;
import org.medagenthub.client.envelope.ProductEnvelope;
import org.medagenthub.client.errors.AuthenticationException;
import org.medagenthub.client.errors.ConnectionException;
import org.medagenthub.client.errors.NotFoundException;
import org.medagenthub.client.json.Json;

/** The client over real HTTP against a scripted loopback server (the JDK's own), for what only a socket shows. */
class MedAgentHubHttpTest {
    /** Upper bound for waiting on the server's side of a state change; reached only when the client is broken. */
    private static final long GUARD_SECONDS = 20;
    private static final String ENVELOPE = "{\"answer\":\"A [3]\",\"references\":[],\"inDepth\":{\"status\":\"pending\",\"answer\":\"\",\"error\":\"\"}}";

    private HttpServer server;
    private final BlockingQueue<Map<String, Object>> seen = new ArrayBlockingQueue<>(16);
    private volatile Handler handler;

    interface Handler {
        void handle(HttpExchange exchange) throws Exception;
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", exchange -> {
            try {
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                seen.add(Map.of(
                        "path", exchange.getRequestURI().getPath(),
                        "authorization", String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")),
                        "accept", String.valueOf(exchange.getRequestHeaders().getFirst("Accept")),
                        "body", body.isEmpty() ? Map.of() : Json.parseObject(body)));
                handler.handle(exchange);
            } catch (Exception e) {
                // The client went away mid-response: what several tests provoke on purpose.
            } finally {
                exchange.close();
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private MedAgentHub client(MedAgentHub.Builder builder) {
        return builder.baseUrl("http://127.0.0.1:" + server.getAddress().getPort() + "/").build();
    }

    private static void respond(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    private static String completion(String envelope) {
        return Json.write(Map.of("object", "chat.completion", "model", "m", "choices", List.of(Map.of("index", 0, "message", Map.of("role", "assistant", "content", envelope)))));
    }

    private static ChatRequest request() {
        return ChatRequest.builder().model("single-12b-bare").user("Patient records (most recent first):\n[1] x").user("q?").context("require_product_profile", true).build();
    }

    @Test
    void modelsSendsTheKeyAndKeepsTheHubsOrder() throws Exception {
        handler = ex -> respond(ex, 200, "application/json", "{\"object\":\"list\",\"data\":[{\"id\":\"b\",\"staged\":true,\"default\":true,\"available\":true},{\"id\":\"a\",\"staged\":false}]}");
        List<ModelInfo> models = client(MedAgentHub.builder().apiKey("k1")).models();
        assertEquals(List.of("b", "a"), models.stream().map(ModelInfo::id).toList());
        assertTrue(models.get(0).isDefault() && models.get(0).staged());
        Map<String, Object> request = seen.take();
        assertEquals("/v1/models", request.get("path"));
        assertEquals("Bearer k1", request.get("authorization"));
    }

    @Test
    void askSendsStreamFalseAndTellsProductFromLegEnvelopes() throws Exception {
        String product = "{\"answer\":\"A [3]\",\"citations\":[3],\"references\":[],\"safetyCheck\":{\"status\":\"unavailable\"},\"inDepth\":{\"status\":\"complete\",\"answer\":\"- c\",\"error\":\"\"}}";
        handler = ex -> respond(ex, 200, "application/json", completion(product));
        MedAgentHub hub = client(MedAgentHub.builder());
        Envelope envelope = hub.ask(request());
        ProductEnvelope p = assertInstanceOf(ProductEnvelope.class, envelope);
        assertEquals(List.of(3), p.citations());
        assertEquals("complete", p.inDepth().orElseThrow().status());
        Map<String, Object> sent = seen.take();
        assertEquals(false, ((Map<?, ?>) sent.get("body")).get("stream"));
        assertEquals("null", sent.get("authorization"));

        handler = ex -> respond(ex, 200, "application/json", completion("{\"answer\":\"L [1]\",\"citations\":[1],\"blocks\":[]}"));
        LegEnvelope leg = assertInstanceOf(LegEnvelope.class, hub.ask(request()));
        assertEquals("L [1]", leg.answer());
        assertEquals(List.of(1), leg.citations());
    }

    @Test
    void errorStatusesAreThrownByAskAndByStream() {
        handler = ex -> respond(ex, 404, "application/json", "{\"error\":{\"message\":\"no\",\"code\":\"model_not_found\"},\"detail\":{\"code\":\"model_not_found\",\"message\":\"no\"}}");
        MedAgentHub hub = client(MedAgentHub.builder());
        assertEquals("model_not_found", assertThrows(NotFoundException.class, () -> hub.ask(request())).code());
        assertEquals("model_not_found", assertThrows(NotFoundException.class, () -> hub.stream(request())).code());
        handler = ex -> respond(ex, 401, "application/json", "{\"detail\":{\"code\":\"authentication_required\"}}");
        assertThrows(AuthenticationException.class, hub::models);
    }

    @Test
    void theHeadersTimeoutNeverCutsALongBody() throws Exception {
        handler = ex -> {
            ex.getResponseHeaders().set("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            OutputStream out = ex.getResponseBody();
            out.write((": hb\n\nevent: answer_done\ndata: " + ENVELOPE + "\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            Thread.sleep(1500); // longer than the headers timeout below: the body goes on after it
            out.write((": hb\n\nevent: done\ndata: " + ENVELOPE + "\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        };
        MedAgentHub hub = client(MedAgentHub.builder().streamHeadersTimeout(Duration.ofSeconds(1)));
        List<String> names = new ArrayList<>();
        try (StagedStream stream = hub.stream(request())) {
            for (StagedEvent event : stream) names.add(event.name());
            assertEquals(2, stream.heartbeats());
        }
        assertEquals(List.of("answer_done", "done"), names);
        Map<String, Object> sent = seen.take();
        assertEquals("text/event-stream", sent.get("accept"));
        assertEquals(true, ((Map<?, ?>) sent.get("body")).get("stream"));
    }

    @Test
    void noHeadersInTimeIsAConnectionError() {
        CountDownLatch release = new CountDownLatch(1);
        handler = ex -> release.await(GUARD_SECONDS, TimeUnit.SECONDS);
        MedAgentHub hub = client(MedAgentHub.builder().streamHeadersTimeout(Duration.ofMillis(200)));
        try {
            assertThrows(ConnectionException.class, () -> hub.stream(request()));
        } finally {
            release.countDown();
        }
    }

    @Test
    void closingEarlyClosesTheConnectionTheServerIsWritingTo() throws Exception {
        assertServerSeesDisconnect(false);
    }

    @Test
    void cancelFromAnotherThreadEndsABlockedReadAndClosesTheConnection() throws Exception {
        assertServerSeesDisconnect(true);
    }

    /** The server sends answer_done, then heartbeats until a write fails: the sign the hub uses to free its model slot. */
    private void assertServerSeesDisconnect(boolean cancelFromOtherThread) throws Exception {
        CountDownLatch disconnected = new CountDownLatch(1);
        handler = ex -> {
            ex.getResponseHeaders().set("Content-Type", "text/event-stream");
            ex.sendResponseHeaders(200, 0);
            OutputStream out = ex.getResponseBody();
            out.write(("event: answer_done\ndata: " + ENVELOPE + "\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD_SECONDS);
            try {
                while (System.nanoTime() < end) {
                    out.write(": hb\n\n".getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    Thread.sleep(20);
                }
            } catch (IOException gone) {
                disconnected.countDown();
            }
        };
        MedAgentHub hub = client(MedAgentHub.builder());
        StagedStream stream = hub.stream(request());
        List<String> names = new ArrayList<>();
        if (cancelFromOtherThread) {
            Thread canceller = new Thread(() -> {
                try {
                    while (stream.heartbeats() < 3) Thread.sleep(5); // the reader is now blocked between heartbeats
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                stream.cancel();
            });
            canceller.start();
            for (StagedEvent event : stream) names.add(event.name()); // ends without an exception once cancelled
            canceller.join();
            assertTrue(stream.isCancelled());
        } else {
            for (StagedEvent event : stream) {
                names.add(event.name());
                break;
            }
            stream.close();
        }
        assertEquals(List.of("answer_done"), names);
        assertTrue(disconnected.await(GUARD_SECONDS, TimeUnit.SECONDS), "the server never saw the client go");
    }

    @Test
    void noServerIsAConnectionError() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        MedAgentHub hub = MedAgentHub.builder().baseUrl("http://127.0.0.1:" + port).build();
        ConnectionException e = assertThrows(ConnectionException.class, hub::models);
        assertEquals("ConnectionError", e.kind());
    }
}
