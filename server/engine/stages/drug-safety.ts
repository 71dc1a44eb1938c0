/**
 * Drug safety's part of the turn (`turn.drugSafety`, ARCHITECTURE "growing the turn"): written only
 * here, read by others through `drugSafetyKeys`. It is not a plan stage of its own — every product
 * plan needs both of its steps and the profile flag `drug_safety` turns them on:
 * - `addDrugEvidence` (inside the context stage, before selection): the patient's exposure, and the
 *   approved package's drug references appended to the ledger after the patient records (§5.6), as
 *   mandatory evidence (defect §13.1 #2);
 * - `checkDrugSafety` (inside resolve_refs, before `answer_done`): the post-answer checks, so the
 *   fast Answer and `done` carry the same warnings. Review labels and never rewrites, so the Answer
 *   checked here is the Answer shipped.
 * A failure of either step is an issue in the result, never an interrupted Answer.
 */
import { legacyKeys, traceSummary, unavailableResult, type PreparedDrugSafety } from '../../checks/drug-safety';
import type { DrugSafetyKeys } from '../../answer';
import { InsufficientContextError } from '../../errors';
import { renderRecordLine, type EvidenceLedger, type EvidenceRecord } from '../../context';
import { gateText } from './gate';
import { recordStep } from '../steps';
import { NOT_RUN, type DrugSafetyTurn } from '../slices/drug-safety';
import type { EngineDeps, TurnState } from '../types';

export const DRUG_SAFETY_SOURCE = 'drug-safety';
const DRUG_SAFETY_PRIORITY = 100;

/** The envelope keys (§9.6, decision 17): the object under `safetyCheck` and `drug_safety`, plus the legacy keys. */
export function drugSafetyKeys(part: DrugSafetyTurn): DrugSafetyKeys {
  const result = part.result;
  return { ...legacyKeys(result), safetyCheck: result, drug_safety: result };
}

/** "Today" of the turn: the reference date the temporal facts resolved, else the UTC date. */
function referenceDateOf(turn: TurnState): string {
  return turn.context.referenceDate ?? new Date().toISOString().slice(0, 10);
}

function referenceRecords(deps: EngineDeps, ledger: EvidenceLedger, prepared: PreparedDrugSafety): EvidenceRecord[] {
  const pkg = deps.drugSafety?.package ?? null;
  const provenance = (pkg?.provenance ?? {}) as Record<string, unknown>;
  return prepared.references.map((ref, i) => ({
    stableId: `drug-reference:${ledger.records.length + i + 1}`,
    source: DRUG_SAFETY_SOURCE,
    sourcePriority: DRUG_SAFETY_PRIORITY,
    resourceType: 'drug_reference',
    resourceUuid: ref.entryId,
    date: null,
    text: ref.text,
    mandatory: true,
    metadata: {
      title: `Drug reference — ${ref.name}`,
      drug: ref.name,
      named_in_question: ref.named,
      ...(typeof provenance.authority === 'string' ? { authority: provenance.authority } : {}),
      ...(typeof provenance.url === 'string' ? { url: provenance.url } : {}),
      ...(typeof provenance.license === 'string' ? { license: provenance.license } : {}),
      ...(pkg ? { version: `${pkg.id} ${pkg.version}`, review_state: pkg.review_state } : {}),
    },
    raw: {},
  }));
}

/** The ledger with the references after the patient records; an original chart text keeps its bytes and gains their lines. */
function appendReferences(ledger: EvidenceLedger, added: EvidenceRecord[]): EvidenceLedger {
  if (added.length === 0) return ledger;
  const base = ledger.records.length;
  let originalText = ledger.originalText;
  if (originalText.trim() !== '') {
    if (!originalText.endsWith('\n')) originalText += '\n';
    originalText += added.map((r, i) => `${renderRecordLine(r, base + i + 1)}\n`).join('');
  }
  return { ...ledger, records: [...ledger.records, ...added], originalText, sources: [...ledger.sources, DRUG_SAFETY_SOURCE] };
}

/** Step 1, from the context stage: exposure and drug references (the returned ledger is the turn's complete ledger). */
export function addDrugEvidence(turn: TurnState, deps: EngineDeps, ledger: EvidenceLedger): EvidenceLedger {
  const part = turn.drugSafety;
  const service = deps.drugSafety ?? null;
  if (!turn.profile.policies.drugSafety) {
    part.result = unavailableResult(service?.package ?? null, [{ id: 'drug_safety_disabled', reason: 'Drug-safety checks are off for this profile.' }]);
    return ledger;
  }
  if (!service) {
    part.result = unavailableResult(null, [{ id: 'drug_safety_not_configured', reason: 'This hub runs without drug-safety checks.' }]);
    return ledger;
  }
  const started = performance.now();
  const prepared = service.prepare({ records: ledger.records, preamble: ledger.preamble, question: turn.context.question, referenceDate: referenceDateOf(turn) });
  part.prepared = prepared;
  part.result = service.notRun(prepared, NOT_RUN);
  const added = ledger.records.length > 0 ? referenceRecords(deps, ledger, prepared) : [];
  recordStep(turn, { role: 'drug_safety_evidence', references: added.length, named_in_question: prepared.references.filter((r) => r.named).length, duration_ms: performance.now() - started });
  return appendReferences(ledger, added);
}

/** Step 2, before `answer_done`: the checks over the Answer (prose and table rows), once per turn. */
export function checkDrugSafety(turn: TurnState, deps: EngineDeps): void {
  const part = turn.drugSafety;
  if (part.checked || !part.prepared || !deps.drugSafety || !turn.answer.draft) return;
  const started = performance.now();
  part.result = deps.drugSafety.check(part.prepared, gateText(turn.answer.draft));
  part.checked = true;
  recordStep(turn, { role: 'drug_safety', ...traceSummary(part.result), duration_ms: performance.now() - started });
}

/**
 * A budget failure that would leave out a question's drug reference names the drug (acceptance of
 * issue 14: never silently dropped); any other error passes through unchanged.
 */
export function explainBudgetFailure(err: unknown, ledger: EvidenceLedger): unknown {
  if (!(err instanceof InsufficientContextError)) return err;
  const mandatory = new Set(Array.isArray(err.extra.mandatory_ids) ? (err.extra.mandatory_ids as string[]) : []);
  const drugs = ledger.records.filter((r) => r.source === DRUG_SAFETY_SOURCE && mandatory.has(r.stableId)).map((r) => String(r.metadata.drug));
  if (drugs.length === 0) return err;
  return err.derive({
    message: `${err.message} The mandatory evidence includes the drug reference(s) for ${drugs.join(', ')}, which cannot be left out.`,
    extra: { ...err.extra, drug_references: drugs },
  });
}
