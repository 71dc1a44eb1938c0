/**
 * The one door into deterministic drug safety (`drug_safety.v1`, hub-contract §9): `createDrugSafety`
 * loads the configured package and cross-reactivity groups once, at start-up (a bad source is reported
 * and treated as absent), and returns the two steps a turn needs — `prepare` (the patient's exposure
 * and the drug references for the ledger) and `check` (the post-answer checks and the result object).
 * Neither step throws: a failure becomes an issue and an `unavailable` result, never a lost Answer.
 */
import { runChecks } from './checks';
import { drugReferences, type DrugReference } from './evidence';
import { buildExposure, type ExposureRecord } from './exposure';
import { loadSources, type SourceSettings } from './package-load';
import { buildResult, packageIssue, unavailableResult } from './result';
import type { CheckSettings, DrugPackage, DrugSafetyIssue, DrugSafetyResult, PackageSummary, PatientExposure } from './types';

export type { DrugReference } from './evidence';
export type { ExposureRecord } from './exposure';
// The patient's exposure read from ledger records, also the knowledge-base source's patient context (one reader).
export { buildExposure } from './exposure';
export type { PatientExposure } from './types';
export { legacyKeys, unavailableResult } from './result';
export type { DrugSafetyResult, PackageSummary, SafetyWarning, Severity, SourceFormat } from './types';

export type DrugSafetySettings = SourceSettings & CheckSettings;

export interface PrepareInput {
  records: readonly ExposureRecord[];
  preamble: string;
  question: string;
  /** "Today" of the turn (YYYY-MM-DD): order expiry and weight freshness are judged against it. */
  referenceDate: string;
}

export interface PreparedDrugSafety {
  /** null when there is no package, or building the exposure failed (an issue says which). */
  exposure: PatientExposure | null;
  question: string;
  /** References to append to the ledger (clinically approved packages only). */
  references: DrugReference[];
  issues: DrugSafetyIssue[];
}

export interface DrugSafety {
  /** The loaded package's identity, or null when none could be loaded. */
  readonly package: PackageSummary | null;
  /** Why no package is loaded (or what loading dropped): for the start-up log. */
  readonly loadIssues: readonly DrugSafetyIssue[];
  prepare(input: PrepareInput): PreparedDrugSafety;
  check(prepared: PreparedDrugSafety, answer: string): DrugSafetyResult;
  /** The result when the checks never ran this turn (drug safety off, no Answer produced). */
  notRun(prepared: PreparedDrugSafety | null, issue: DrugSafetyIssue): DrugSafetyResult;
}

function errorName(err: unknown): string {
  return err instanceof Error ? err.name : 'unknown';
}

class LoadedDrugSafety implements DrugSafety {
  readonly package: PackageSummary | null;
  readonly loadIssues: readonly DrugSafetyIssue[];

  constructor(private readonly pkg: DrugPackage | null, issues: DrugSafetyIssue[], private readonly settings: CheckSettings) {
    this.package = pkg?.summary ?? null;
    this.loadIssues = issues;
  }

  private absent(): DrugSafetyResult {
    const issues = this.loadIssues.length ? [...this.loadIssues] : [{ id: 'package_absent', reason: 'No drug-safety package is configured.' }];
    return unavailableResult(null, issues);
  }

  prepare(input: PrepareInput): PreparedDrugSafety {
    if (!this.pkg) return { exposure: null, question: input.question, references: [], issues: [] };
    try {
      const exposure = buildExposure({ ...input, entries: this.pkg.entries, weightConceptUuid: this.settings.weightConceptUuid, weightMaxAgeDays: this.settings.weightMaxAgeDays });
      // Unreviewed rules never reach a prompt as citable evidence: only an approved package adds references.
      const approved = packageIssue(this.pkg.summary) === null;
      const references = approved && exposure.origin !== 'none' ? drugReferences(input.question, exposure, this.pkg) : [];
      // Problems of optional inputs (e.g. unreadable cross-reactivity groups) travel with every result.
      return { exposure, question: input.question, references, issues: [...this.loadIssues] };
    } catch (err) {
      return { exposure: null, question: input.question, references: [], issues: [...this.loadIssues, { id: 'exposure_failed', reason: `Reading the patient's exposure failed (${errorName(err)}).` }] };
    }
  }

  check(prepared: PreparedDrugSafety, answer: string): DrugSafetyResult {
    if (!this.pkg) return this.absent();
    if (!prepared.exposure) return unavailableResult(this.pkg.summary, [...prepared.issues, { id: 'check_failed', reason: 'The drug-safety checks could not run for this turn.' }]);
    let outcome: ReturnType<typeof runChecks> | null = null;
    try {
      outcome = runChecks({ pkg: this.pkg, exposure: prepared.exposure, question: prepared.question, answer, minInteractionSeverity: this.settings.minInteractionSeverity });
    } catch {
      outcome = null;
    }
    try {
      return buildResult({ pkg: this.pkg.summary, exposure: prepared.exposure, outcome, issues: prepared.issues });
    } catch (err) {
      // Even the result could not be built: say so, with nothing presented as checked.
      return unavailableResult(this.pkg.summary, [...prepared.issues, { id: 'check_failed', reason: `The drug-safety checks failed for this turn (${errorName(err)}).` }]);
    }
  }

  notRun(prepared: PreparedDrugSafety | null, issue: DrugSafetyIssue): DrugSafetyResult {
    if (!this.pkg) return this.absent();
    return unavailableResult(this.pkg.summary, [...(prepared?.issues ?? []), issue]);
  }
}

/** Loads the sources and returns the service (start-up; never throws on bad data). */
export function createDrugSafety(settings: DrugSafetySettings): DrugSafety {
  const { pkg, issues } = loadSources(settings);
  return new LoadedDrugSafety(pkg, issues, settings);
}

/** What the trace keeps of a result: package identity, coverage and findings — never patient text. */
export function traceSummary(result: DrugSafetyResult): Record<string, unknown> {
  const p = result.package;
  return {
    status: result.status,
    package: p ? { id: p.id, version: p.version, review_state: p.review_state, source_format: p.source_format } : null,
    coverage: result.coverage,
    identity_confidence: result.identity_confidence,
    findings: result.warnings.map((w) => ({ type: w.type, drug: w.drug, severity: w.severity })),
    issue_ids: result.issues.map((i) => i.id),
  };
}
