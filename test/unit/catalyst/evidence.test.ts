/** Request evidence built from plain data (clients.md §5): fit arithmetic, null reasons, digests. */
import { buildEvidenceRequest, buildRequestEvidence, knownOverflow, promptEvidence, tokenAccounting, tokenEvidence } from '../../../server/catalyst/evidence';
import type { ResolvedRole } from '../../../server/catalyst/types';
import { assertShape, checkEvidence, jcs, sha256 } from '../../support/catalyst-contract';

const ROLE: ResolvedRole = {
  profileId: 'catalyst-query-x', role: 'query_generate', model: 'gemma-4-12b', promptStem: 'catalyst-query-generate',
  systemPrompt: 'You write SQL.', config: { temperature: 0, dryMultiplier: 0, maxTokens: 100 },
};

describe('tokenEvidence', () => {
  test.each<[string, { promptTokens: number | null; contextWindow: number | null }, Record<string, unknown>]>([
    ['fits with room', { promptTokens: 50, contextWindow: 200 }, { requiredTokens: 150, fits: true }],
    ['exactly fits', { promptTokens: 100, contextWindow: 200 }, { requiredTokens: 200, fits: true }],
    ['one token over', { promptTokens: 101, contextWindow: 200 }, { requiredTokens: 201, fits: false }],
    ['unknown window', { promptTokens: 10, contextWindow: null }, { requiredTokens: 110, fits: null, contextWindowUnavailableReason: 'context_window_unknown' }],
    ['unknown prompt count', { promptTokens: null, contextWindow: 200 }, { requiredTokens: null, fits: null, promptTokensUnavailableReason: 'tokenizer_unavailable' }],
    ['both unknown', { promptTokens: null, contextWindow: null }, { requiredTokens: null, fits: null, contextWindowUnavailableReason: 'context_window_unknown', promptTokensUnavailableReason: 'tokenizer_unavailable' }],
  ])('%s', (_name, m, expected) => {
    const t = tokenEvidence('gemma-4-12b', 100, m);
    expect(t).toEqual({ tokenizer: 'gemma-4-12b', outputReserve: 100, contextWindow: m.contextWindow, promptTokens: m.promptTokens, ...expected });
    expect(knownOverflow(t)).toBe(expected.fits === false);
    expect(tokenAccounting(t)).toEqual(m.promptTokens !== null && m.contextWindow !== null ? { tokenizer: 'gemma-4-12b', contextWindow: m.contextWindow, outputReserve: 100, promptTokens: m.promptTokens } : null);
  });

  test('a specific reason given by the measurement is kept', () => {
    expect(tokenEvidence('m', 1, { promptTokens: null, promptTokensReason: 'renderer_unavailable', contextWindow: null, contextWindowReason: 'x' })).toMatchObject({ promptTokensUnavailableReason: 'renderer_unavailable', contextWindowUnavailableReason: 'x' });
  });
});

describe('promptEvidence', () => {
  test.each<[string, string | null, Record<string, unknown>]>([
    ['rendered', '<s>system\nYou write SQL.', { renderedPrompt: '<s>system\nYou write SQL.', renderedPromptDigest: sha256('<s>system\nYou write SQL.') }],
    ['empty rendering is still a rendering', '', { renderedPrompt: '', renderedPromptDigest: sha256('') }],
    ['not rendered', null, { renderedPrompt: null, renderedPromptDigest: null, unavailableReason: 'renderer_unavailable' }],
  ])('%s', (_name, rendered, expected) => {
    expect(promptEvidence({ renderedPrompt: rendered })).toEqual(expected);
  });
});

describe('buildRequestEvidence', () => {
  const caller = [{ role: 'user', content: '{"catalog":{},"question":"q"}' }, { role: 'assistant', content: 'SELECT 1' }, { role: 'user', content: 'again' }];

  test.each<[string, Record<string, unknown> | null]>([
    ['with a response format', { type: 'json_schema', json_schema: { name: 'sql', schema: { type: 'object' } } }],
    ['without one', null],
  ])('%s: valid against Catalyst\'s schema, system prompt first, caller messages unchanged, digest of RFC 8785 JSON', (_name, rf) => {
    const request = buildEvidenceRequest(ROLE, caller, rf);
    const e = buildRequestEvidence(request, { renderedPrompt: 'R', promptTokens: 7, contextWindow: 300 });
    assertShape('evidence', e);
    expect(checkEvidence(e, { profileId: ROLE.profileId, role: 'query_generate', model: 'gemma-4-12b', callerMessages: caller, responseFormat: rf, knobs: { temperature: 0, dry: 0, maxTokens: 100 } })).toEqual([]);
    expect(e.request.messages[0]).toEqual({ role: 'system', content: 'You write SQL.' });
    expect(e.requestDigest).toBe(sha256(jcs(e.request)));
  });

  test('the caller\'s message objects are copied by reference into the evidence, never rewritten', () => {
    const request = buildEvidenceRequest(ROLE, caller, null);
    expect(request.messages.slice(1)).toEqual(caller);
    expect(request.config).not.toBe(ROLE.config);
  });
});
