package org.medagenthub.client.errors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The one status → class mapping (PROTOCOL.md's table, plus the statuses server/errors.ts produces). */
class ApiErrorsTest {
    private static String body(String code) {
        return "{\"error\":{\"message\":\"m\",\"type\":\"t\",\"param\":null,\"code\":\"" + code + "\"},\"detail\":{\"code\":\"" + code + "\",\"message\":\"m\"}}";
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource({
        "400, invalid_request_error,      BadRequestException,          BadRequestError",
        "400, product_profile_required,   BadRequestException,          BadRequestError",
        "401, authentication_required,    AuthenticationException,      AuthenticationError",
        "403, invalid_api_key,            PermissionDeniedException,    PermissionDeniedError",
        "404, model_not_found,            NotFoundException,            NotFoundError",
        "405, method_not_allowed,         ApiException,                 APIError",
        "406, not_acceptable,             ApiException,                 APIError",
        "413, request_too_large,          RequestTooLargeException,     RequestTooLargeError",
        "422, insufficient_context,       InsufficientContextException, InsufficientContextError",
        "422, something_else,             UnprocessableEntityException, UnprocessableEntityError",
        "429, RATE_LIMIT,                 RateLimitException,           RateLimitError",
        "499, generation_cancelled,       ApiException,                 APIError",
        "500, internal_error,             InternalServerException,      InternalServerError",
        "501, stage_not_implemented,      InternalServerException,      InternalServerError",
        "502, router_error,               InternalServerException,      InternalServerError",
        "503, model_unavailable,          ModelUnavailableException,    ModelUnavailableError",
        "503, router_busy,                ServiceUnavailableException,  ServiceUnavailableError",
        "503, context_source_unavailable, ServiceUnavailableException,  ServiceUnavailableError",
        "504, router_timeout,             InternalServerException,      InternalServerError",
    })
    void mapsStatusAndCodeToOneClass(int status, String code, String className, String kind) {
        ApiException e = ApiErrors.fromResponse(status, body(code), null);
        assertEquals(className, e.getClass().getSimpleName());
        assertEquals(kind, e.kind());
        assertEquals(status, e.status());
        assertEquals(code, e.code());
        assertEquals("m", e.getMessage());
    }

    @Test
    void insufficientContextCarriesItsDetail() {
        String text = "{\"detail\":{\"code\":\"insufficient_context\",\"message\":\"chart too large\",\"source\":\"selector\",\"mandatoryIds\":[\"inline:1\"]}}";
        ApiException e = ApiErrors.fromResponse(422, text, null);
        assertTrue(e instanceof InsufficientContextException);
        assertTrue(e instanceof UnprocessableEntityException);
        assertEquals("selector", e.detail().get("source"));
        assertEquals(List.of("inline:1"), e.detail().get("mandatoryIds"));
        assertEquals("chart too large", e.getMessage());
    }

    @Test
    void detailCodeIsTheCodeAndEitherCodeNamesTheClass() {
        // Catalyst's 422: the hub's code in error.code, the family's pinned name in detail.code.
        ApiException e = ApiErrors.fromResponse(422, "{\"error\":{\"code\":\"insufficient_context\"},\"detail\":{\"code\":\"context_window_exceeded\"}}", null);
        assertEquals("context_window_exceeded", e.code());
        assertTrue(e instanceof InsufficientContextException);
        ApiException other = ApiErrors.fromResponse(422, "{\"error\":{\"code\":\"x\"},\"detail\":{\"code\":\"y\"}}", null);
        assertSame(UnprocessableEntityException.class, other.getClass());
        assertEquals("y", other.code());
        assertEquals("x", ApiErrors.fromResponse(400, "{\"error\":{\"code\":\"x\"}}", null).code());
    }

    @Test
    void aBodyThatIsNotJsonStillMapsByStatus() {
        ApiException e = ApiErrors.fromResponse(503, "<html>Bad gateway</html>", null);
        assertSame(ServiceUnavailableException.class, e.getClass());
        assertNull(e.code());
        assertTrue(e.detail().isEmpty());
        assertEquals("HTTP 503", e.getMessage());
    }

    @Test
    void retryAfterSecondsAreRead() {
        assertEquals(2, ApiErrors.fromResponse(503, body("router_busy"), "2").retryAfterSeconds().getAsLong());
        assertFalse(ApiErrors.fromResponse(503, body("router_busy"), "Wed, 21 Oct 2026 07:28:00 GMT").retryAfterSeconds().isPresent());
    }

    @Test
    void otherFailuresHaveTheirKinds() {
        assertEquals("ConnectionError", new ConnectionException("x", null).kind());
        assertEquals("HubProtocolError", new HubProtocolException("x").kind());
    }
}
