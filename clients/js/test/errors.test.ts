/** The one mapping point from an HTTP failure to its error class (PROTOCOL.md, "Errors"). */
import { ERROR_CATALOGUE } from '../../../server/errors';
import {
  APIError, AuthenticationError, BadRequestError, errorFromResponse, InsufficientContextError, InternalServerError, ModelUnavailableError,
  NotFoundError, PermissionDeniedError, RateLimitError, RequestTooLargeError, ServiceUnavailableError, UnprocessableEntityError,
} from '../src/index.js';

/** The hub's error body (decision 1) for a code of its catalogue. */
function hubBody(code: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { error: { message: `m ${code}`, type: 'x', param: null, code }, detail: { code, message: `m ${code}`, ...extra } };
}

async function mapped(status: number, body: unknown, headers: Record<string, string> = {}): Promise<APIError> {
  return errorFromResponse(new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers }));
}

describe('errorFromResponse', () => {
  test.each([
    [400, 'invalid_request_error', BadRequestError],
    [401, 'authentication_required', AuthenticationError],
    [403, 'invalid_api_key', PermissionDeniedError],
    [404, 'model_not_found', NotFoundError],
    [413, 'request_too_large', RequestTooLargeError],
    [422, 'insufficient_context', InsufficientContextError],
    [422, 'unprocessable', UnprocessableEntityError],
    [429, 'RATE_LIMIT', RateLimitError],
    [503, 'model_unavailable', ModelUnavailableError],
    [503, 'router_busy', ServiceUnavailableError],
    [502, 'router_unreachable', InternalServerError],
    [504, 'router_timeout', InternalServerError],
    [499, 'generation_cancelled', APIError],
    [405, 'method_not_allowed', APIError],
  ])('%i %s → %p', async (status, code, Cls) => {
    const err = await mapped(status, hubBody(code));
    expect(err.constructor).toBe(Cls);
    expect(err).toMatchObject({ status, code, kind: Cls.kind, name: Cls.kind });
  });

  test('every code of the hub catalogue maps to a class of its status', async () => {
    for (const [code, spec] of Object.entries(ERROR_CATALOGUE)) {
      const err = await mapped(spec.status, hubBody(code));
      expect(err.status).toBe(spec.status);
      expect(err.code).toBe(code);
      if (spec.status >= 500 && spec.status !== 503) expect(err).toBeInstanceOf(InternalServerError);
      if (spec.status === 503) expect(err).toBeInstanceOf(ServiceUnavailableError);
      if (spec.status < 500 && ![400, 401, 403, 404, 413, 422, 429].includes(spec.status)) expect(err.kind).toBe('APIError');
    }
  });

  test('InsufficientContextError carries detail; Catalyst\'s 422 (detail.code context_window_exceeded) is one too', async () => {
    const err = await mapped(422, hubBody('insufficient_context', { source: 'selector', mandatory_ids: ['inline:1'] }));
    expect(err).toBeInstanceOf(InsufficientContextError);
    expect((err as InsufficientContextError).detail.mandatory_ids).toEqual(['inline:1']);
    const catalyst = await mapped(422, { error: { code: 'insufficient_context', message: 'm' }, detail: { code: 'context_window_exceeded', hub_code: 'insufficient_context', message: 'm' } });
    expect(catalyst).toBeInstanceOf(InsufficientContextError);
    expect(catalyst.code).toBe('context_window_exceeded');
  });

  test('knowledge validation (detail is a list) takes its code from error.code; a non-JSON body keeps its text', async () => {
    const validation = await mapped(422, { error: { code: 'invalid_request_error', message: 'bad' }, detail: [{ loc: ['body', 'query'], msg: 'Field required', type: 'missing' }] });
    expect(validation).toBeInstanceOf(UnprocessableEntityError);
    expect(validation.code).toBe('invalid_request_error');
    expect(Array.isArray(validation.detail)).toBe(true);
    const proxy = await mapped(502, '<html>Bad gateway</html>');
    expect(proxy).toBeInstanceOf(InternalServerError);
    expect(proxy.code).toBeNull();
    expect(proxy.body).toBe('<html>Bad gateway</html>');
  });

  test('Retry-After is read in seconds', async () => {
    const err = await mapped(503, hubBody('router_busy'), { 'retry-after': '5' });
    expect(err.retryAfterSeconds).toBe(5);
    expect((await mapped(503, hubBody('router_busy'))).retryAfterSeconds).toBeNull();
  });
});
