/**
 * The `drug_safety.v1` result (§9.6) and its status rule. A result never looks clean when the hub
 * could not check: no package, an unreviewed package, no patient context or a failed check ⇒
 * `unavailable`; incomplete exposure (an inline chart), an unmapped active order or a stated dose that
 * could not be checked ⇒ `limited`; only a complete check over structured exposure is `checked`.
 */
import type { CheckOutcome } from './checks';
import type { Coverage, DrugSafetyIssue, DrugSafetyResult, DrugSafetyStatus, PackageSummary, PatientExposure } from './types';

export interface StatusInput {
  /** `approved` = review state `clinically_approved`. */
  packageState: 'absent' | 'unapproved' | 'approved';
  exposure: 'none' | 'partial' | 'complete';
  mappingComplete: boolean;
  executionComplete: boolean;
  /** Every check that applied could run (a stated dose without an age band could not). */
  checksComplete: boolean;
}

export function deriveStatus(s: StatusInput): DrugSafetyStatus {
  if (s.packageState !== 'approved' || !s.executionComplete || s.exposure === 'none') return 'unavailable';
  if (s.exposure !== 'complete' || !s.mappingComplete || !s.checksComplete) return 'limited';
  return 'checked';
}

function emptyCoverage(): Coverage {
  return { mapping_complete: false, exposure_complete: false, execution_complete: false, active_order_count: 0, mapped_active_order_count: 0 };
}

/** A result that says why nothing was checked (drug safety off, no package, no context, no Answer). */
export function unavailableResult(pkg: PackageSummary | null, issues: DrugSafetyIssue[]): DrugSafetyResult {
  return { schema_version: 'drug_safety.v1', status: 'unavailable', warnings: [], package: pkg, coverage: emptyCoverage(), identity_confidence: null, issues };
}

export function packageIssue(pkg: PackageSummary): DrugSafetyIssue | null {
  if (pkg.review_state === 'clinically_approved') return null;
  return {
    id: 'package_not_approved',
    reason: `The drug-safety package '${pkg.id}' (version ${pkg.version}) is ${pkg.review_state}, not clinically_approved: its rules are not used as reviewed decision support, so it shows no warning.`,
    package_id: pkg.id,
    review_state: pkg.review_state,
  };
}

export interface ResultInput {
  pkg: PackageSummary;
  exposure: PatientExposure;
  /** null when the checks raised (execution incomplete). */
  outcome: CheckOutcome | null;
  /** Issues raised before the checks (loading, preparation), in order. */
  issues: DrugSafetyIssue[];
}

function exposureIssues(exposure: PatientExposure): DrugSafetyIssue[] {
  const out: DrugSafetyIssue[] = [];
  if (exposure.origin === 'none') out.push({ id: 'no_patient_context', reason: 'No patient records came with this turn: there is no exposure to check against.' });
  if (exposure.origin === 'inline_chart') {
    out.push({ id: 'exposure_incomplete', reason: 'The exposure was read from the inline chart\'s classifiable lines (medications, allergies, conditions, weight), not from structured records: it may be incomplete.' });
  }
  const unmapped = exposure.medications.filter((m) => m.entryId === null && m.atcCodes.length === 0);
  if (unmapped.length) out.push({ id: 'unmapped_active_order', reason: `${unmapped.length} active medication(s) are not in the drug-safety package, so they could not be checked: ${unmapped.map((m) => m.name).join('; ')}.`, count: unmapped.length });
  return out;
}

export function buildResult(input: ResultInput): DrugSafetyResult {
  const { pkg, exposure, outcome } = input;
  const approved = pkg.review_state === 'clinically_approved';
  const mapped = exposure.medications.filter((m) => m.entryId !== null || m.atcCodes.length > 0).length;
  const coverage: Coverage = {
    mapping_complete: mapped === exposure.medications.length && exposure.origin !== 'none',
    exposure_complete: exposure.complete,
    execution_complete: outcome !== null,
    active_order_count: exposure.medications.length,
    mapped_active_order_count: mapped,
  };
  const issues = [...input.issues, ...exposureIssues(exposure)];
  const notApproved = packageIssue(pkg);
  if (notApproved) issues.push(notApproved);
  if (outcome === null) issues.push({ id: 'check_failed', reason: 'The drug-safety checks failed for this turn; no result is shown as checked.' });
  for (const d of outcome?.doseUnchecked ?? []) {
    issues.push({ id: 'dose_unchecked', reason: `A stated dose of ${d.drug} could not be checked: ${d.reason === 'age_unknown' ? "the patient's age is not known" : "the package has no dosing band for the patient's age"}.`, drug: d.drug });
  }
  const status = deriveStatus({
    packageState: approved ? 'approved' : 'unapproved',
    exposure: exposure.origin === 'none' ? 'none' : exposure.complete ? 'complete' : 'partial',
    mappingComplete: coverage.mapping_complete,
    executionComplete: coverage.execution_complete,
    checksComplete: (outcome?.doseUnchecked.length ?? 0) === 0,
  });
  return {
    schema_version: 'drug_safety.v1',
    status,
    // Only a clinically approved package's findings are product warnings (§9.6).
    warnings: approved && outcome ? outcome.warnings : [],
    package: pkg,
    coverage,
    identity_confidence: exposure.origin === 'structured' ? 'structured' : exposure.origin === 'inline_chart' ? 'inline_text' : null,
    issues,
  };
}

/** The legacy keys beside the object (§9.4): `safetyStatus`, and `safetyWarnings` only when non-empty. */
export function legacyKeys(result: DrugSafetyResult): { safetyStatus: DrugSafetyStatus; safetyWarnings?: DrugSafetyResult['warnings'] } {
  return result.warnings.length ? { safetyStatus: result.status, safetyWarnings: result.warnings } : { safetyStatus: result.status };
}
