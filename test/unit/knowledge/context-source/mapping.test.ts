/**
 * The knowledge-base source's pure parts (knowledge-layer.md §6.4): MKU → EvidenceRecord mapping, the
 * mandatory cap, the preamble notes, references' provenance, the In-Depth gathered part, the budget-failure
 * message, and the guarantees toward the rest of the hub (no temporal events, no patient medications).
 */
import { buildExposure } from '../../../../server/checks/drug-safety';
import { parseEvents } from '../../../../server/checks/temporal/parse';
import { PROVENANCE_LINE, renderLedger, renderRecordLine } from '../../../../server/context/render';
import { explainKnowledgeBudgetFailure, knowledgeGathered } from '../../../../server/context/sources/knowledge-base';
import { mapContext, MAX_NOTES, NOTES_HEADER, recordAttribution, toRecord } from '../../../../server/knowledge/context-source/mapping';
import { patientContext } from '../../../../server/knowledge/context-source/patient';
import { knowledgeSourceSettings } from '../../../../server/config';
import type { EvidenceLedger, EvidenceRecord } from '../../../../server/context/types';
import { resolveReferences } from '../../../../server/engine/references';
import { contextError, HubError } from '../../../../server/errors';
import type { ContextResponse, MkuResult } from '../../../../server/knowledge/pipeline/types';

const PROV = { doc_id: 'd1', doc_title: 'Warfarin label', doc_url: 'https://example.invalid/warfarin', reco_id: null, year: 2025, source_name: 'FDA', source_org: 'U.S. FDA', section_titles: ['7 DRUG INTERACTIONS', '7.4 Antibiotics'], pages: ['12'], section_summaries: [], doc_summary: null, degraded: true };

function mku(id: string, over: Partial<MkuResult> = {}): MkuResult {
  return { id, verbatim: `Verbatim of ${id}.`, criteria: 'c', directive: 'd', safety_critical: false, review: true, evidence_grade: null, strength: null, score: 1, paths: ['R1_vector'], tags: [], provenance: PROV, ...over };
}

function response(mkus: MkuResult[], over: Partial<ContextResponse> = {}): ContextResponse {
  return { query: 'q', mkus, safety_items: [], conflicts: [], cross_refs: [], fallback: [], trace: {} as ContextResponse['trace'], tokens_in: null, tokens_out: null, ...over };
}

const LIMITS = { maxMandatory: 8, k: 5 };

describe('record text: the verbatim byte-exact; the attribution on a prompt line of its own', () => {
  const P = `${PROVENANCE_LINE}`;
  test.each<[string, Partial<MkuResult>, string, string]>([
    ['full provenance', {}, 'U.S. FDA 2025, Warfarin label › 7 DRUG INTERACTIONS › 7.4 Antibiotics', `[4] KnowledgeReference (source: knowledge-base): Verbatim of m.${P}U.S. FDA 2025, Warfarin label › 7 DRUG INTERACTIONS › 7.4 Antibiotics)`],
    ['no section', { provenance: { ...PROV, section_titles: [] } }, 'U.S. FDA 2025, Warfarin label', `[4] KnowledgeReference (source: knowledge-base): Verbatim of m.${P}U.S. FDA 2025, Warfarin label)`],
    ['no year', { provenance: { ...PROV, year: null, section_titles: [] } }, 'U.S. FDA, Warfarin label', `[4] KnowledgeReference (source: knowledge-base): Verbatim of m.${P}U.S. FDA, Warfarin label)`],
    ['no org: the source name', { provenance: { ...PROV, source_org: '', section_titles: [] } }, 'FDA 2025, Warfarin label', `[4] KnowledgeReference (source: knowledge-base): Verbatim of m.${P}FDA 2025, Warfarin label)`],
    ['no provenance: the verbatim alone', { provenance: undefined }, '', '[4] KnowledgeReference (source: knowledge-base): Verbatim of m.'],
    // An em dash inside the quote (the former separator) stays part of the quote, and the quote's bytes are untouched.
    ['odd bytes kept as they are', { verbatim: 'INR  ≥ 3\u00a0(see 5.1) — “monitor”' }, 'U.S. FDA 2025, Warfarin label › 7 DRUG INTERACTIONS › 7.4 Antibiotics', `[4] KnowledgeReference (source: knowledge-base): INR  ≥ 3\u00a0(see 5.1) — “monitor”${P}U.S. FDA 2025, Warfarin label › 7 DRUG INTERACTIONS › 7.4 Antibiotics)`],
  ])('%s', (_name, over, attribution, line) => {
    const m = mku('m', over);
    expect(recordAttribution(m)).toBe(attribution);
    const r = toRecord(m, { mandatory: false, safety: false, demoted: false, license: null });
    expect(r.text).toBe(m.verbatim);
    expect(renderRecordLine(r, 4)).toBe(line);
    // The quote is the whole first line of the record, exactly as committed.
    expect(line.split('\n')[0].slice('[4] KnowledgeReference (source: knowledge-base): '.length)).toBe(m.verbatim);
  });
});

describe('one EvidenceRecord per MKU', () => {
  test('ids, type, priority, null date, metadata and raw', () => {
    const m = mku('mku_d1_abc', { safety_critical: true, evidence_grade: 'A', tags: ['safety-relevant'] });
    const r = toRecord(m, { mandatory: true, safety: true, demoted: false, license: 'CC0' });
    expect(r).toMatchObject({ stableId: 'knowledge-base:mku:mku_d1_abc', source: 'knowledge-base', sourcePriority: 20, resourceType: 'KnowledgeReference', resourceUuid: 'mku_d1_abc', date: null, mandatory: true, raw: m });
    expect(r.metadata).toMatchObject({ title: 'Warfarin label', url: PROV.doc_url, version: '2025', license: 'CC0', authority: 'U.S. FDA', source_org: 'U.S. FDA', evidence_grade: 'A', reviewed: true, criteria: 'c', directive: 'd', tags: ['safety-relevant'], paths: ['R1_vector'], score: 1, safety_critical: true, safety_item: true });
  });

  test('references to it carry provenance {authority, url, version, license} and the record text', () => {
    const r = toRecord(mku('m1'), { mandatory: false, safety: false, demoted: false, license: 'CC0 1.0' });
    const ledger: EvidenceLedger = { records: [r], originalText: '', preamble: '', sources: ['knowledge-base'] };
    const [ref] = resolveReferences(new Map([[1, [{ location: 'answer', text: 'x [1].' }]]]), ledger, 'unchecked');
    expect(ref).toMatchObject({ sourceId: 'knowledge-base:mku:m1', title: 'Warfarin label', sourceText: mku('m1').verbatim, date: null });
    expect(ref.provenance).toEqual({ authority: 'U.S. FDA', url: PROV.doc_url, version: '2025', license: 'CC0 1.0' });
  });

  test('without a known licence the provenance has the other three', () => {
    const r = toRecord(mku('m1'), { mandatory: false, safety: false, demoted: false, license: null });
    const [ref] = resolveReferences(new Map([[1, []]]), { records: [r], originalText: '', preamble: '', sources: [] }, 'unchecked');
    expect(ref.provenance).toEqual({ authority: 'U.S. FDA', url: PROV.doc_url, version: '2025' });
  });
});

describe('mandatory, the cap, k, and what never becomes a record', () => {
  test.each<[string, ContextResponse, typeof LIMITS, { ids: string[]; mandatory: string[]; stats: Record<string, number> }]>([
    ['safety_critical and safety items are mandatory, first, best ranked first',
      response([mku('a', { score: 3 }), mku('s1', { safety_critical: true, score: 1 }), mku('s2', { score: 2 })], { safety_items: ['s2'] }), LIMITS,
      { ids: ['s2', 's1', 'a'], mandatory: ['s2', 's1'], stats: { mandatory: 2, demoted: 0, records: 3 } }],
    ['beyond the cap: ordinary records, flagged demoted',
      response([mku('s1', { safety_critical: true, score: 1 }), mku('s2', { safety_critical: true, score: 5 }), mku('s3', { safety_critical: true, score: 3 })]), { maxMandatory: 2, k: 5 },
      { ids: ['s2', 's3', 's1'], mandatory: ['s2', 's3'], stats: { mandatory: 2, demoted: 1 } }],
    ['a cap of 0 makes none mandatory',
      response([mku('s1', { safety_critical: true })]), { maxMandatory: 0, k: 5 },
      { ids: ['s1'], mandatory: [], stats: { mandatory: 0, demoted: 1 } }],
    ['ties rank by id (deterministic)',
      response([mku('sb', { safety_critical: true }), mku('sa', { safety_critical: true })]), { maxMandatory: 1, k: 5 },
      { ids: ['sa', 'sb'], mandatory: ['sa'], stats: { demoted: 1 } }],
    ['ordinary records: at most k, in the pipeline order',
      response([mku('a'), mku('b'), mku('c')]), { maxMandatory: 8, k: 2 },
      { ids: ['a', 'b'], mandatory: [], stats: { beyond_k: 1, records: 2 } }],
    ['fallback chunks are left out; a duplicate id once',
      response([mku('a'), mku('a')], { fallback: [{ chunk_id: 'c1', text: 'raw chunk', score: 0.3, tag: 'non_adjudiqué' }] }), LIMITS,
      { ids: ['a'], mandatory: [], stats: { fallback_left_out: 1, records: 1 } }],
    ['nothing returned: an empty ledger', response([]), LIMITS, { ids: [], mandatory: [], stats: { records: 0 } }],
  ])('%s', (_name, res, limits, expected) => {
    const { ledger, stats } = mapContext(res, new Map(), limits);
    expect(ledger.records.map((r) => r.resourceUuid)).toEqual(expected.ids);
    expect(ledger.records.filter((r) => r.mandatory).map((r) => r.resourceUuid)).toEqual(expected.mandatory);
    expect(stats).toMatchObject(expected.stats);
    expect(ledger.records.every((r) => r.resourceType === 'KnowledgeReference' && r.date === null)).toBe(true);
    expect(ledger.records.filter((r) => r.metadata.mandatory_demoted === true)).toHaveLength(expected.stats.demoted ?? 0);
    expect(ledger.sources).toEqual(expected.ids.length ? ['knowledge-base'] : []);
  });

  test('conflicts and DISAGREE/PARTIAL cross-refs go to the preamble (AGREE does not); no records, no notes', () => {
    const res = response([mku('a'), mku('b', { provenance: { ...PROV, doc_title: 'Amoxicillin label' } })], {
      conflicts: [{ description: 'Patient on warfarin: monitor INR', mku_id: 'a' }, { description: 'about a record not kept', mku_id: 'zzz' }],
      cross_refs: [{ from_id: 'a', to_id: 'b', stance: 'PARTIAL' }, { from_id: 'a', to_id: 'b', stance: 'AGREE' }, { from_id: 'b', to_id: 'x', stance: 'DISAGREE' }],
    });
    const { ledger, stats } = mapContext(res, new Map(), LIMITS);
    expect(ledger.preamble).toBe([
      NOTES_HEADER,
      '- Conflict with this patient: Patient on warfarin: monitor INR',
      '- Sources partly agree: "Warfarin label" (U.S. FDA 2025) and "Amoxicillin label" (U.S. FDA 2025).',
      '- Sources disagree: "Amoxicillin label" (U.S. FDA 2025) and knowledge unit x.',
      '',
    ].join('\n'));
    expect(stats).toMatchObject({ conflicts: 1, cross_refs_noted: 2 });
    // The notes are not records: nothing in them is citable.
    expect(renderLedger(ledger).split('\n').filter((l) => /^\[\d+\]/.test(l))).toHaveLength(2);
    expect(mapContext(response([], { conflicts: [{ description: 'x' }] }), new Map(), LIMITS).ledger.preamble).toBe('');
  });

  test('the notes are bounded and identical lines appear once', () => {
    const conflicts = Array.from({ length: 20 }, (_, i) => ({ description: `conflict ${i % 12}` }));
    const { ledger } = mapContext(response([mku('a')], { conflicts }), new Map(), LIMITS);
    const lines = ledger.preamble.trim().split('\n');
    expect(lines).toHaveLength(1 + MAX_NOTES + 1);
    expect(lines[lines.length - 1]).toBe(`- (${12 - MAX_NOTES} more note(s) not shown)`);
  });
});

describe('the rest of the hub', () => {
  const kb = toRecord(mku('m1', { verbatim: 'Medication: warfarin interacts with antibiotics (2024-01-01).' }), { mandatory: true, safety: true, demoted: false, license: null });
  const chart: EvidenceRecord = { stableId: 'inline:1', source: 'inline', sourcePriority: 10, resourceType: 'ChartRecord', resourceUuid: null, date: '2026-02-01', text: 'Medication: lisinopril 10 mg', mandatory: false, metadata: {}, raw: {} };
  const ledger: EvidenceLedger = { records: [chart, kb], originalText: '', preamble: `${NOTES_HEADER}\n- Conflict with this patient: x\n`, sources: ['inline', 'knowledge-base'] };

  test('temporal parsing never reads a knowledge record as a chart event', () => {
    expect(parseEvents(renderLedger(ledger)).map((e) => e.index)).toEqual([1]);
  });

  test('drug safety never reads a knowledge record as a patient medication', () => {
    const exposure = buildExposure({ records: ledger.records, preamble: '', referenceDate: '2026-03-10', entries: [], weightConceptUuid: null, weightMaxAgeDays: 90 });
    expect(exposure.medications.map((m) => m.name)).toEqual(['lisinopril 10 mg']);
  });

  test('the In-Depth gathered part lists the knowledge records by index, and the notes', () => {
    expect(knowledgeGathered(ledger)).toBe([
      'Knowledge-base guidance records in the evidence (cite them by [N] for guidance; patient facts cite patient records):',
      '[2] U.S. FDA 2025, Warfarin label › 7 DRUG INTERACTIONS › 7.4 Antibiotics (safety guidance)',
      'Knowledge-base notes (not citable):',
      '- Conflict with this patient: x',
    ].join('\n'));
    expect(knowledgeGathered({ ...ledger, records: [chart] })).toBe('');
    expect(knowledgeGathered(null)).toBe('');
  });

  test('an insufficient_context whose mandatory evidence holds knowledge records names them', () => {
    const err = contextError('insufficient_context', 'selector', 'Mandatory evidence exceeds the limit.', { mandatory_ids: ['inline:1', kb.stableId] });
    const explained = explainKnowledgeBudgetFailure(err, ledger) as HubError;
    expect(explained.message).toBe('Mandatory evidence exceeds the limit. The mandatory evidence includes knowledge-base safety guidance knowledge-base:mku:m1 (Warfarin label), which cannot be left out.');
    expect(explained.extra).toMatchObject({ source: 'selector', knowledge_references: ['knowledge-base:mku:m1'] });
    const other = contextError('insufficient_context', 'selector', 'm', { mandatory_ids: ['inline:1'] });
    expect(explainKnowledgeBudgetFailure(other, ledger)).toBe(other);
    const unrelated = new Error('x');
    expect(explainKnowledgeBudgetFailure(unrelated, ledger)).toBe(unrelated);
  });
});

describe('patient context from the primary ledger', () => {
  const rec = (n: number, text: string): EvidenceRecord => ({ stableId: `inline:${n}`, source: 'inline', sourcePriority: 10, resourceType: 'ChartRecord', resourceUuid: null, date: '2026-01-01', text, mandatory: false, metadata: {}, raw: {} });

  test.each<[string, EvidenceLedger | undefined, Record<string, unknown>]>([
    ['no primary ledger', undefined, {}],
    ['medications, allergies, active conditions, age and sex', { records: [rec(1, 'Medication: Warfarin 5 mg tablet'), rec(2, 'Medication: Aspirin 81 mg, discontinued'), rec(3, 'Allergy: Penicillin. Reaction: rash'), rec(4, 'Condition: atrial fibrillation, status: active'), rec(5, 'Condition: otitis, status: resolved')], originalText: '', preamble: 'Patient: 70-year-old Male\n', sources: ['inline'] },
      { current_treatments: ['Warfarin 5 mg tablet'], allergies: ['penicillin'], active_problems: ['atrial fibrillation'], age: 70, sex: 'male' }],
    ['a structured patient record', { records: [{ ...rec(1, 'Patient: Test'), source: 'querystore', raw: { resourceType: 'patient', metadata: { age_years: 40, gender: 'F' } } }], originalText: '', preamble: '', sources: ['querystore'] }, { age: 40, sex: 'female' }],
    ['knowledge and drug references are not the patient', { records: [{ ...rec(1, 'Medication: warfarin'), source: 'knowledge-base', resourceType: 'KnowledgeReference' }], originalText: '', preamble: '', sources: [] }, {}],
  ])('%s', (_name, ledger, expected) => {
    expect(patientContext(ledger, '2026-03-10')).toEqual(expected);
  });

  test('lists are bounded', () => {
    const records = Array.from({ length: 120 }, (_, i) => rec(i + 1, `Allergy: substance ${i}`));
    expect(patientContext({ records, originalText: '', preamble: '', sources: ['inline'] }, '2026-03-10').allergies).toHaveLength(50);
  });
});

describe('settings', () => {
  test('defaults: auto, in process, 10 s, 8 mandatory, k 5, no key', () => {
    expect(knowledgeSourceSettings({})).toEqual({ mode: 'auto', locusBaseUrl: null, locusApiKey: '', timeoutMs: 10_000, maxMandatory: 8, k: 5 });
  });

  test('HTTP settings (trailing slashes trimmed)', () => {
    expect(knowledgeSourceSettings({ KNOWLEDGE_SOURCE: 'OFF', LOCUS_BASE_URL: 'http://kb:8000/base//', LOCUS_API_KEY: 'lsk_a_0', LOCUS_TIMEOUT_SECONDS: '0.5', KNOWLEDGE_MAX_MANDATORY: '0', KNOWLEDGE_SOURCE_K: '3' }))
      .toEqual({ mode: 'off', locusBaseUrl: 'http://kb:8000/base', locusApiKey: 'lsk_a_0', timeoutMs: 500, maxMandatory: 0, k: 3 });
  });

  test.each([
    [{ KNOWLEDGE_SOURCE: 'on' }, 'KNOWLEDGE_SOURCE'],
    [{ LOCUS_BASE_URL: 'not a url' }, 'LOCUS_BASE_URL'],
    [{ LOCUS_BASE_URL: 'ftp://kb' }, 'LOCUS_BASE_URL'],
    [{ LOCUS_TIMEOUT_SECONDS: '0' }, 'LOCUS_TIMEOUT_SECONDS'],
    [{ KNOWLEDGE_MAX_MANDATORY: '-1' }, 'KNOWLEDGE_MAX_MANDATORY'],
    [{ KNOWLEDGE_SOURCE_K: '2.5' }, 'KNOWLEDGE_SOURCE_K'],
  ])('%j is refused naming %s', (env, variable) => {
    expect(() => knowledgeSourceSettings(env)).toThrow(new RegExp(`^${variable}:`));
  });
});
