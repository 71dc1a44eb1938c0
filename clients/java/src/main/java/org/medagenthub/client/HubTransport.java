package org.medagenthub.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.medagenthub.client.errors.ApiErrors;
import org.medagenthub.client.errors.ConnectionException;
import org.medagenthub.client.json.Json;

/** HTTP for {@link MedAgentHub}: builds requests, sends them, turns a non-2xx answer into its exception. */
final class HubTransport {
    /**
     * Error bodies are read only this far, bounded against a misbehaving proxy. Generous on purpose: a 422
     * insufficient_context lists every mandatory id that could not fit (thousands on a big chart), and a cut
     * body would lose {@code detail.code}.
     */
    private static final int MAX_ERROR_BODY_BYTES = 4 * 1024 * 1024;

    private final HttpClient http;
    private final String baseUrl;
    private final String apiKey;
    private final Duration headersTimeout;

    HubTransport(HttpClient http, String baseUrl, String apiKey, Duration headersTimeout) {
        this.http = http;
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.apiKey = apiKey;
        this.headersTimeout = headersTimeout;
    }

    /** GET returning the parsed JSON body. */
    Object getJson(String path) {
        return Json.parse(readAll(send(request(path).GET(), "application/json")));
    }

    /** POST a JSON body, returning the parsed JSON answer. */
    Object postJson(String path, Map<String, Object> body) {
        return Json.parse(readAll(send(post(path, body), "application/json")));
    }

    /** POST a JSON body and hand back the open event stream once the headers are in. */
    InputStream postForEvents(String path, Map<String, Object> body) {
        return send(post(path, body), "text/event-stream");
    }

    private HttpRequest.Builder post(String path, Map<String, Object> body) {
        return request(path)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(body), StandardCharsets.UTF_8));
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(baseUrl + path));
        // The JDK applies this timeout until the response headers arrive, never to the body: a staged turn may
        // stream for minutes, but a hub that sends no headers at all is given up on.
        if (headersTimeout != null) builder.timeout(headersTimeout);
        if (apiKey != null && !apiKey.isEmpty()) builder.header("Authorization", "Bearer " + apiKey);
        return builder;
    }

    /** Sends and returns the body of a 2xx answer; any other status becomes its exception (ApiErrors). */
    private InputStream send(HttpRequest.Builder builder, String accept) {
        HttpRequest request = builder.header("Accept", accept).build();
        HttpResponse<InputStream> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (HttpTimeoutException e) {
            throw new ConnectionException("no response headers from " + request.uri() + " within " + headersTimeout, e);
        } catch (IOException e) {
            throw new ConnectionException("no response from " + request.uri() + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectionException("interrupted while waiting for " + request.uri(), e);
        }
        int status = response.statusCode();
        if (status >= 200 && status < 300) return response.body();
        String errorBody = readBounded(response.body());
        throw ApiErrors.fromResponse(status, errorBody, response.headers().firstValue("Retry-After").orElse(null));
    }

    private static String readAll(InputStream body) {
        try (InputStream in = body) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConnectionException("the response body broke off: " + e, e);
        }
    }

    private static String readBounded(InputStream body) {
        try (InputStream in = body) {
            return new String(in.readNBytes(MAX_ERROR_BODY_BYTES), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return ""; // the status alone still decides the exception class
        }
    }
}
