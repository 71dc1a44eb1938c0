/**
 * The hub's `knowledge-base` context source (knowledge-layer.md §6.4, hub-contract §5.5):
 * `createKnowledgeBaseSource(settings, deps)` gives the `ContextSource` (name `knowledge-base`, priority 20)
 * and `close()`. As a supplemental source it reads the primary ledger for the patient context, asks
 * `/v2/context` (in process or over HTTP, `agent_enabled: false`: the hub writes its own answer) and maps each
 * MKU to a record. It never fails a turn: off, unavailable or failing, it adds nothing and says so through
 * `req.report` (status and counts only — never the query, the patient's facts or the key).
 */
import { emptyLedger, type ContextSource, type EvidenceLedger } from '../../context';
import type { PipelineDeps } from '../pipeline/types';
import { KNOWLEDGE_PRIORITY, KNOWLEDGE_SOURCE_NAME, mapContext } from './mapping';
import { patientContext } from './patient';
import type { KnowledgeSourceSettings } from '../../config';
import { httpTransport, inProcessTransport, KnowledgeCallError, type KnowledgeTransport } from './transport';


/** Locus's request schema bounds the query. */
const QUERY_MAX = 8000;

export interface KnowledgeBaseDeps {
  /** The hub's own knowledge engine; null when it is not open (then in-process mode reports `unavailable`). */
  engine: PipelineDeps | null;
  /** "Today" for ages from birth dates (tests); default the UTC date. */
  today?: () => string;
}

export interface KnowledgeBaseSource {
  source: ContextSource;
  /** `off` | `in_process` | `http` | `unavailable` (in process without an engine). */
  transport: string;
  close(): Promise<void>;
}

function pickTransport(settings: KnowledgeSourceSettings, deps: KnowledgeBaseDeps): KnowledgeTransport | null {
  if (settings.mode === 'off') return null;
  if (settings.locusBaseUrl !== null) return httpTransport({ baseUrl: settings.locusBaseUrl, apiKey: settings.locusApiKey, timeoutMs: settings.timeoutMs });
  return deps.engine ? inProcessTransport(deps.engine) : null;
}

export function createKnowledgeBaseSource(settings: KnowledgeSourceSettings, deps: KnowledgeBaseDeps): KnowledgeBaseSource {
  const transport = pickTransport(settings, deps);
  const status = settings.mode === 'off' ? 'off' : transport ? transport.kind : 'unavailable';
  const today = deps.today ?? (() => new Date().toISOString().slice(0, 10));
  const source: ContextSource = {
    name: KNOWLEDGE_SOURCE_NAME,
    priority: KNOWLEDGE_PRIORITY,
    supportsPatient: false,
    async fetch(req): Promise<EvidenceLedger> {
      const report = (r: Record<string, unknown>) => req.report?.({ source: KNOWLEDGE_SOURCE_NAME, ...r });
      if (!transport) {
        report({ status });
        return emptyLedger();
      }
      const query = req.question.trim().slice(0, QUERY_MAX);
      if (query === '') {
        report({ status: 'no_question', transport: transport.kind });
        return emptyLedger();
      }
      const patient = patientContext(req.primaryLedger, today());
      const facts = { treatments: patient.current_treatments?.length ?? 0, allergies: patient.allergies?.length ?? 0, problems: patient.active_problems?.length ?? 0, age: patient.age !== undefined, sex: patient.sex !== undefined };
      const started = performance.now();
      try {
        const call = await transport.context({ query, patient_ehr: patient, opts: { agent_enabled: false } }, req.signal);
        const mapped = mapContext(call.response, call.licenses, { maxMandatory: settings.maxMandatory, k: settings.k });
        report({ status: 'ok', transport: transport.kind, patient_facts: facts, ...mapped.stats, mandatory_cap: settings.maxMandatory, fetch_ms: ms(started) });
        return mapped.ledger;
      } catch (err) {
        const failure = err instanceof KnowledgeCallError ? err.kind : 'internal';
        const httpStatus = err instanceof KnowledgeCallError ? err.status : null;
        // Degrade: the turn goes on with the chart alone, and the trace says why (knowledge-layer.md §6.4).
        report({ status: 'failed', transport: transport.kind, failure, ...(httpStatus !== null ? { http_status: httpStatus } : {}), patient_facts: facts, fetch_ms: ms(started) });
        return emptyLedger();
      }
    },
  };
  return { source, transport: status, close: () => transport?.close() ?? Promise.resolve() };
}

function ms(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
