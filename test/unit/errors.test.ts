/** The error catalogue (server/errors.ts): one row per code, the wire status and type each code had before the catalogue, and the subclasses callers branch on. */
import { toWireError } from '../../server/wire/errors';
import {
  ContextError,
  contextError,
  ERROR_CATALOGUE,
  errorEventData,
  GenerationCancelledError,
  GenerationTimeoutError,
  HubError,
  type HubErrorCode,
  InsufficientContextError,
  ModelUnavailableError,
  RouterBusyError,
  RouterTimeoutError,
  ShuttingDownError,
  TokenizationUnavailableError,
} from '../../server/errors';

/**
 * What the wire said for each code before the catalogue: the status every construction site passed and
 * the type that status implied (400/404/413/422 invalid_request_error, 401 authentication_error, 403
 * permission_error, 503 unavailable_error, anything else server_error), except RATE_LIMIT's explicit
 * rate_limit_error. A `Record` over the union, so a new code without a row here does not compile.
 */
const WIRE: Record<HubErrorCode, [number, string]> = {
  invalid_request_error: [400, 'invalid_request_error'],
  product_profile_required: [400, 'invalid_request_error'],
  authentication_required: [401, 'authentication_error'],
  invalid_api_key: [403, 'permission_error'],
  unreviewed_not_allowed: [403, 'permission_error'],
  not_found: [404, 'invalid_request_error'],
  model_not_found: [404, 'invalid_request_error'],
  profile_not_found: [404, 'invalid_request_error'],
  role_not_found: [404, 'invalid_request_error'],
  method_not_allowed: [405, 'server_error'],
  not_acceptable: [406, 'server_error'],
  request_too_large: [413, 'invalid_request_error'],
  insufficient_context: [422, 'invalid_request_error'],
  generation_cancelled: [499, 'server_error'],
  internal_error: [500, 'server_error'],
  prompt_unavailable: [500, 'server_error'],
  stage_not_implemented: [501, 'server_error'],
  router_error: [502, 'server_error'],
  router_unreachable: [502, 'server_error'],
  model_empty_content: [502, 'server_error'],
  hub_shutting_down: [503, 'unavailable_error'],
  router_busy: [503, 'unavailable_error'],
  router_unavailable: [503, 'unavailable_error'],
  model_unavailable: [503, 'unavailable_error'],
  model_backend_unreachable: [503, 'unavailable_error'],
  tokenization_unavailable: [503, 'unavailable_error'],
  context_source_unavailable: [503, 'unavailable_error'],
  context_source_failed: [503, 'unavailable_error'],
  knowledge_unavailable: [503, 'unavailable_error'],
  router_timeout: [504, 'server_error'],
  generation_timeout: [504, 'server_error'],
  AUTH_MISSING: [401, 'authentication_error'],
  AUTH_INVALID_FORMAT: [401, 'authentication_error'],
  AUTH_INVALID_KEY: [401, 'authentication_error'],
  AUTH_CLIENT_INACTIVE: [403, 'permission_error'],
  RATE_LIMIT: [429, 'rate_limit_error'],
};

/** Codes a client may resend unchanged: a busy, loading, stopping, unreachable or failing-for-now backend. */
const RETRYABLE = new Set<HubErrorCode>([
  'router_unreachable', 'hub_shutting_down', 'router_busy', 'router_unavailable', 'model_backend_unreachable', 'tokenization_unavailable',
  'context_source_unavailable', 'context_source_failed', 'knowledge_unavailable', 'router_timeout', 'RATE_LIMIT',
]);

/** One error of each code, built the way the hub builds it (the branched codes only through their subclass). */
function build(code: HubErrorCode): HubError {
  switch (code) {
    case 'insufficient_context':
    case 'tokenization_unavailable':
    case 'context_source_unavailable':
    case 'context_source_failed':
      return contextError(code, 'selector', 'm');
    case 'model_unavailable': return new ModelUnavailableError('m');
    case 'hub_shutting_down': return new ShuttingDownError('m');
    case 'router_busy': return new RouterBusyError('m');
    case 'router_timeout': return new RouterTimeoutError('m');
    case 'generation_cancelled': return new GenerationCancelledError('m');
    case 'generation_timeout': return new GenerationTimeoutError('m');
    default: return new HubError(code, 'm');
  }
}

describe('the catalogue', () => {
  test('has exactly one row per code, each with a meaning', () => {
    expect(Object.keys(ERROR_CATALOGUE).sort()).toEqual(Object.keys(WIRE).sort());
    for (const row of Object.values(ERROR_CATALOGUE)) expect(row.meaning.length).toBeGreaterThan(10);
  });

  test.each(Object.entries(WIRE))('%s keeps its wire status and type', (code, [status, type]) => {
    expect(ERROR_CATALOGUE[code as HubErrorCode]).toMatchObject({ status, type });
    const wire = toWireError(build(code as HubErrorCode));
    expect(wire.status).toBe(status);
    expect(wire.body.error).toEqual({ message: 'm', type, param: null, code });
    expect(wire.body.detail.code).toBe(code);
  });

  test('says which codes a client may retry', () => {
    const retryable = Object.entries(ERROR_CATALOGUE).filter(([, row]) => row.retryable).map(([code]) => code);
    expect(retryable.sort()).toEqual([...RETRYABLE].sort());
    expect(new RouterBusyError('m').retryable).toBe(true);
    expect(new HubError('router_error', 'm').retryable).toBe(false);
  });
});

describe('a status other than the catalogue\'s', () => {
  test('keeps the code, and the type follows the status as it did before the catalogue', () => {
    const unsupported = new HubError('invalid_request_error', 'The request body could not be read.', { status: 415 });
    expect([unsupported.code, unsupported.status, unsupported.type]).toEqual(['invalid_request_error', 415, 'server_error']);
    const same = new HubError('invalid_request_error', 'm', { status: 400 });
    expect([same.status, same.type]).toEqual([400, 'invalid_request_error']);
  });
});

describe('derive', () => {
  test('keeps the class, code, status, type, param and headers; adds detail and renames the detail code', () => {
    const err = new InsufficientContextError('selector', 'Too long.', { mandatory_ids: ['a'] });
    const out = err.derive({ message: 'Too long. Names a.', extra: { ...err.extra, named: ['a'] }, detailCode: 'context_window_exceeded' });
    expect(out).toBeInstanceOf(InsufficientContextError);
    expect(out).toBeInstanceOf(Error);
    expect(out).not.toBe(err);
    expect([out.code, out.status, out.type, out.message, out.detailCode, out.name]).toEqual(['insufficient_context', 422, 'invalid_request_error', 'Too long. Names a.', 'context_window_exceeded', 'HubError']);
    expect(out.extra).toEqual({ source: 'selector', mandatory_ids: ['a'], named: ['a'] });
    expect(typeof out.stack).toBe('string');
    expect(err.message).toBe('Too long.');
    expect(err.detailCode).toBe('insufficient_context');
    const busy = new RouterBusyError('Busy.', { headers: { 'Retry-After': '2' }, param: 'model' }).derive({ extra: { request_evidence: {} } });
    expect([busy.headers, busy.param, busy.message]).toEqual([{ 'Retry-After': '2' }, 'model', 'Busy.']);
  });

  test('with another status, the type follows the status (Catalyst\'s 502 for backend failures)', () => {
    const out = new ModelUnavailableError('No such model.', { extra: { source: 'llama-router' } }).derive({ status: 502 });
    expect(out).toBeInstanceOf(ModelUnavailableError);
    expect([out.code, out.status, out.type, out.extra]).toEqual(['model_unavailable', 502, 'server_error', { source: 'llama-router' }]);
  });
});

describe('the subclasses callers branch on', () => {
  test('contextError builds the subclass of its code, with the source first in detail', () => {
    expect(contextError('insufficient_context', 'selector', 'm', { input_tokens: 9 })).toBeInstanceOf(InsufficientContextError);
    expect(contextError('tokenization_unavailable', 'llama-router', 'm')).toBeInstanceOf(TokenizationUnavailableError);
    const failed = contextError('context_source_failed', 'querystore', 'm', { querystore_status: 500 });
    expect(failed).toBeInstanceOf(ContextError);
    expect(failed).not.toBeInstanceOf(InsufficientContextError);
    expect(Object.keys(failed.extra)).toEqual(['source', 'querystore_status']);
  });

  test('every context code is a ContextError and a HubError; no other code is', () => {
    const context = ['insufficient_context', 'tokenization_unavailable', 'context_source_unavailable', 'context_source_failed'];
    for (const code of Object.keys(WIRE) as HubErrorCode[]) {
      const err = build(code);
      expect(err).toBeInstanceOf(HubError);
      expect(err.code).toBe(code);
      expect(err instanceof ContextError).toBe(context.includes(code));
    }
  });

  test('an event: error repeats the code, the source and the actionable detail fields', () => {
    const err = new ModelUnavailableError('Load failed.', { extra: { source: 'embedded-llama', model: 'm1', expected_file: '/models/m1.gguf', other: 1 } });
    expect(errorEventData(err)).toEqual({ code: 'model_unavailable', source: 'embedded-llama', message: 'Load failed.', model: 'm1', expected_file: '/models/m1.gguf' });
    expect(errorEventData(new HubError('internal_error', 'x'))).toEqual({ code: 'internal_error', source: 'hub', message: 'x' });
  });
});
