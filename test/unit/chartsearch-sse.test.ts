/**
 * The ChartSearchAI module's reading of a staged stream (clients.md §2.1, §2.3), as ported in
 * test/support/chartsearch-sse.ts: a table of raw streams, then the conformance `provider_lifecycle`
 * sequences produced from matching hub streams written by the hub's own SSE writer.
 */
import * as fs from 'fs';
import * as path from 'path';
import { HEARTBEAT_FRAME, formatSseEvent } from '../../server/chat/sse';
import { parseChartSearchStream, type ChartSearchStreamResult } from '../support/chartsearch-sse';

const FIXTURE = path.resolve(__dirname, '../../../shared/conformance/dual-provider-conformance.v1.json');

const env = (validation: string, inDepth: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  answer: 'Weight is 71 kg [1].',
  references: [{ index: 1, groundingStatus: validation === 'checking' ? 'checking' : 'verified' }],
  blocks: [],
  answerValidation: { status: validation },
  inDepth: { status: inDepth, answer: inDepth === 'complete' ? '- Weight fell 3 kg [1]' : '', error: '', validation: null },
  safetyStatus: 'checked',
  ...extra,
});

const frame = formatSseEvent;
const ERROR_PAYLOAD = { code: 'insufficient_context', source: 'querystore', message: 'chart too large' };

type Expect = Partial<ChartSearchStreamResult>;
const cases: Array<[string, string, Expect]> = [
  [
    'a full hub stream needs no settling',
    frame('answer_done', env('checking', 'pending')) + HEARTBEAT_FRAME + frame('answer_validation', env('checked', 'pending')) + frame('indepth_pending', env('checked', 'pending')) + HEARTBEAT_FRAME + frame('indepth_done', env('checked', 'complete')) + frame('done', env('checked', 'complete')),
    { turns: ['turn_started', 'answer_done', 'answer_validation', 'indepth_pending', 'indepth_done', 'turn_done'], settled: [], heartbeats: 2, error: null, problemCode: null },
  ],
  [
    'the retired flat In-Depth shape is rejected',
    frame('answer_done', env('checking', 'pending')) + 'event:indepth_done\ndata: {"status":"complete","answer":"retired wire"}\n\n',
    { turns: ['turn_started', 'answer_done', 'turn_error'], error: 'Failed to parse in-depth response', problemCode: 'provider_failure' },
  ],
  [
    'the retired {messageId, inDepth:null} pending shape is rejected',
    frame('answer_done', env('checking', 'pending')) + frame('indepth_pending', { messageId: null, answer: 'x', inDepth: null }),
    { error: 'Failed to parse in-depth response' },
  ],
  [
    'a plain-text data frame kills the turn, even on an ignored event',
    frame('answer_delta', 'Weight is') + frame('done', env('checked', 'complete')),
    { turns: ['turn_started', 'turn_error'], problemCode: 'provider_failure', events: [] },
  ],
  [
    'a JSON array payload is not an object',
    'event: answer_done\ndata: [1,2]\n\n',
    { turns: ['turn_started', 'turn_error'], problemCode: 'provider_failure' },
  ],
  [
    'done still checking/pending is settled by the client, and reported',
    frame('answer_done', env('checking', 'pending')) + frame('done', env('checking', 'pending')),
    { turns: ['turn_started', 'answer_done', 'turn_done'], settled: ['answerValidation', 'inDepth'] },
  ],
  [
    'done without a prior answer_done synthesises answer_done',
    frame('done', env('checked', 'complete')),
    { turns: ['turn_started', 'answer_done', 'turn_done'], settled: [] },
  ],
  [
    'done that differs, with no evidence_updated/indepth_pending seen, adds evidence_updated',
    frame('answer_done', env('checking', 'pending')) + frame('done', env('checked', 'complete')),
    { turns: ['turn_started', 'answer_done', 'evidence_updated', 'turn_done'], settled: [] },
  ],
  [
    'grounded maps to evidence_updated; unknown events are ignored',
    frame('answer_done', env('checking', 'pending')) + frame('stream_cancelled', {}) + frame('grounded', env('checked', 'pending')) + frame('done', env('checked', 'complete')),
    { turns: ['turn_started', 'answer_done', 'evidence_updated', 'turn_done'] },
  ],
  [
    'an envelope event without a string answer is not relayed',
    frame('answer_done', { answer: null }) + frame('done', env('checked', 'complete')),
    { turns: ['turn_started', 'answer_done', 'turn_done'] },
  ],
  [
    'done without an answer is hub_stream_incomplete',
    frame('answer_done', env('checking', 'pending')) + frame('done', { references: [] }),
    { turns: ['turn_started', 'answer_done', 'turn_error'], problemCode: 'hub_stream_incomplete', settled: ['answerValidation', 'inDepth'] },
  ],
  [
    'a body ending without done/error is hub_stream_incomplete (and the client settles)',
    frame('answer_done', env('checking', 'pending')) + HEARTBEAT_FRAME,
    { turns: ['turn_started', 'answer_done', 'turn_error'], problemCode: 'hub_stream_incomplete', settled: ['answerValidation', 'inDepth'], heartbeats: 1 },
  ],
  [
    'a terminal frame without its blank line is never dispatched',
    frame('done', env('checked', 'complete')).slice(0, -1),
    { turns: ['turn_started', 'turn_error'], problemCode: 'hub_stream_incomplete' },
  ],
  [
    'error reads detail.code first',
    frame('error', { detail: { code: 'insufficient_context', message: 'chart too large' }, code: 'other' }),
    { turns: ['turn_started', 'turn_error'], problemCode: 'insufficient_context' },
  ],
  ['error falls back to top-level code', frame('error', ERROR_PAYLOAD), { problemCode: 'insufficient_context' }],
  ['error without any code is hub_rejected_request', frame('error', { message: 'no' }), { problemCode: 'hub_rejected_request' }],
  [
    'reading stops at the first terminal: later frames (even malformed) and heartbeats are dropped',
    frame('done', env('checked', 'complete')) + HEARTBEAT_FRAME + frame('error', ERROR_PAYLOAD) + 'event: x\ndata: not json\n\n',
    { turns: ['turn_started', 'answer_done', 'turn_done'], heartbeats: 0, error: null },
  ],
  [
    'CRLF line endings, data without a space, and multi-line data are read',
    'event: answer_done\r\ndata:{"answer":"a",\r\ndata: "inDepth":{"status":"pending"}}\r\n\r\n: hb\r\n\r\nevent: done\r\ndata: {"answer":"a","inDepth":{"status":"complete"}}\r\n\r\n',
    { turns: ['turn_started', 'answer_done', 'evidence_updated', 'turn_done'], heartbeats: 1, settled: [] },
  ],
];

describe('parseChartSearchStream (module rules)', () => {
  it.each(cases)('%s', (_label, raw, expected) => {
    expect(parseChartSearchStream(raw)).toMatchObject(expected);
  });

  it('settling rewrites the persisted envelope the way the module does', () => {
    const result = parseChartSearchStream(frame('done', env('checking', 'pending')));
    expect(result.envelope).toMatchObject({
      answerValidation: { status: 'unavailable', label: 'Check unavailable', summary: 'Answer checking was interrupted.' },
      inDepth: { status: 'failed', error: 'In-Depth was interrupted.' },
    });
    // The hub's own event stays as it was sent: tests can see what the hub wrote.
    expect(result.events[0].data).toMatchObject({ answerValidation: { status: 'checking' } });
  });

  it('a transport failure after an answer completes the turn with that answer; before one it fails', () => {
    const answered = parseChartSearchStream(frame('answer_done', env('checking', 'pending')), { transportFailure: true });
    expect(answered).toMatchObject({ turns: ['turn_started', 'answer_done', 'turn_done'], settled: ['answerValidation', 'inDepth'], problemCode: null });
    expect(answered.envelope?.answer).toBe('Weight is 71 kg [1].');
    expect(parseChartSearchStream(HEARTBEAT_FRAME, { transportFailure: true })).toMatchObject({ turns: ['turn_started', 'turn_error'], problemCode: 'provider_failure' });
  });

  it('keeps unknown envelope keys verbatim (content-agnostic)', () => {
    const result = parseChartSearchStream(frame('done', env('checked', 'complete', { trace: { id: 't1' } })));
    expect(result.envelope).toMatchObject({ trace: { id: 't1' } });
  });
});

/** Hub streams that should produce each conformance lifecycle; a new fixture case without one fails. */
const LIFECYCLE_STREAMS: Record<string, string> = {
  'provider.lifecycle.required-answer-and-terminal': HEARTBEAT_FRAME + frame('done', env('checked', 'complete')),
  'provider.lifecycle.review-is-optional':
    frame('answer_done', env('checking', 'pending')) +
    frame('answer_validation', env('checked', 'pending')) +
    frame('indepth_pending', env('checked', 'pending')) +
    HEARTBEAT_FRAME +
    frame('indepth_done', env('checked', 'complete')) +
    frame('done', env('checked', 'complete')),
  'provider.lifecycle.no-silent-fallback': HEARTBEAT_FRAME + frame('error', ERROR_PAYLOAD),
};

describe('conformance provider_lifecycle from hub streams', () => {
  const fixture = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as { provider_lifecycle: Array<{ id: string; events: string[]; expected: string }> };

  it.each(fixture.provider_lifecycle.map((c) => [c.id, c] as const))('%s', (id, lifecycle) => {
    expect(lifecycle.expected).toBe('accept');
    const raw = LIFECYCLE_STREAMS[id];
    expect(raw).toBeDefined();
    const result = parseChartSearchStream(raw);
    expect(result.turns).toEqual(lifecycle.events);
    expect(result.settled).toEqual([]);
    expect(result.error).toBeNull();
  });
});
