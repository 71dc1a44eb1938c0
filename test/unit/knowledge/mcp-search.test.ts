/**
 * The `search` tool's documented mapping onto /v2/context (server/knowledge/mcp/search.ts) and the
 * quota's count of tool calls per MCP body (server/knowledge/mcp/index.ts), on hand-built inputs.
 */
import { toolCallCount } from '../../../server/knowledge/mcp';
import { groupSearch, searchContextRequest } from '../../../server/knowledge/mcp/search';
import type { ContextResponse, MkuResult } from '../../../server/knowledge/pipeline/types';

function mku(id: string, doc: string | null, safety = false): MkuResult {
  const provenance = doc === null ? undefined : { doc_id: doc, doc_title: `T ${doc}`, doc_url: null, reco_id: null, year: 2024, source_name: 'S', source_org: 'O', section_titles: ['Sec'], pages: ['2'], section_summaries: [], doc_summary: null, degraded: true };
  return { id, verbatim: `v ${id}`, criteria: '', directive: '', safety_critical: safety, review: true, evidence_grade: null, strength: null, score: 1, paths: ['R1_vector'], tags: [], ...(provenance ? { provenance } : {}) };
}

function ctx(mkus: MkuResult[], safety_items: string[] = []): ContextResponse {
  return { query: 'q', mkus, safety_items, conflicts: [], cross_refs: [], fallback: [], tokens_in: null, tokens_out: null, trace: { judge_score: 0.7, judge_sufficient: true } as ContextResponse['trace'] };
}

const ids = (r: ReturnType<typeof groupSearch>) => r.units.map((u) => `${u.doc_id}:${u.chunks.map((c) => c.id).join(',')}`);

describe('search → /v2/context', () => {
  test('the request: depth limit × max_chunks_per_unit (capped at 200), fallback limit, patient or {}', () => {
    expect(searchContextRequest({ query: 'q' })).toEqual({ query: 'q', patient_ehr: {}, opts: { mku_sim_topk: 30, fallback_chunk_topk: 10 } });
    expect(searchContextRequest({ query: 'q', limit: 50, max_chunks_per_unit: 20, patient_ehr: { age: 3 } })).toEqual({ query: 'q', patient_ehr: { age: 3 }, opts: { mku_sim_topk: 200, fallback_chunk_topk: 50 } });
  });

  test('groups by document in rank order, caps chunks per unit and units, keeps safety MKUs past both caps', () => {
    const r = groupSearch({ query: 'q', limit: 2, max_chunks_per_unit: 1 }, ctx([mku('a1', 'A'), mku('b1', 'B'), mku('a2', 'A'), mku('a3', 'A', true), mku('c1', 'C'), mku('c2', 'C'), mku('d1', 'D')], ['c2']));
    expect(ids(r)).toEqual(['A:a1,a3', 'B:b1', 'C:c2']);
    expect(r.units[0]).toMatchObject({ doc_title: 'T A', year: 2024, source_org: 'O' });
    expect(r.units[0].chunks[0]).toMatchObject({ section_titles: ['Sec'], pages: ['2'] });
    expect(r.units[0].chunks[0]).not.toHaveProperty('provenance');
    expect(r.judge).toEqual({ score: 0.7, sufficient: true });
  });

  test('MKUs without provenance form one unit with a null document', () => {
    const r = groupSearch({ query: 'q' }, ctx([mku('x', null), mku('y', null)]));
    expect(r.units).toHaveLength(1);
    expect(r.units[0]).toMatchObject({ doc_id: null, doc_title: null });
    expect(r.units[0].chunks[0]).toMatchObject({ section_titles: [], pages: [] });
  });
});

test('quota: one unit per tools/call message, batches counted, everything else free', () => {
  const callMsg = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search' } };
  expect(toolCallCount(callMsg)).toBe(1);
  expect(toolCallCount([callMsg, { ...callMsg, id: 2 }, { jsonrpc: '2.0', id: 3, method: 'tools/list' }])).toBe(2);
  for (const body of [{ jsonrpc: '2.0', id: 1, method: 'initialize' }, { jsonrpc: '2.0', method: 'notifications/initialized' }, {}, [], null, 'tools/call']) expect(toolCallCount(body)).toBe(0);
});
