/**
 * Types of deterministic drug safety (`drug_safety.v1`, hub-contract §9): the source package, the
 * patient's exposure, findings and the result object. Plain data: every check in this folder takes
 * these and returns these (no I/O, no clock — the reference date is an argument).
 */

export const REVIEW_STATES = ['proposed', 'evidence_curated', 'clinically_approved', 'retired'] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

/** Interaction severities as sources rate them; `unknown` is a rating ("rated Unknown"), not a missing one. */
export const SEVERITIES = ['minor', 'moderate', 'major'] as const;
export type Severity = (typeof SEVERITIES)[number];
export type SourceSeverity = Severity | 'unknown';

export interface AgeBand {
  minYears: number;
  maxYears: number;
  mgPerKgMin: number | null;
  mgPerKgMax: number | null;
  /** 0 = no published maximum (§9.1). */
  maxDailyDoseMg: number;
}

export interface InteractionRule {
  token: string | null;
  atc: string | null;
  note: string | null;
  /** null = unrated curated rule (eligible at any floor, §9.6). */
  severity: SourceSeverity | null;
  /** Where the rule comes from (label section and page for the bundled package). */
  source: string | null;
}

export interface ContraindicationRule {
  type: 'allergy' | 'condition';
  token: string;
  note: string | null;
  source: string | null;
}

export interface DrugEntry {
  id: string;
  name: string;
  drugClass: string | null;
  /** Lower-cased; always includes the lower-cased name. */
  aliases: string[];
  atcCodes: string[];
  ageBands: AgeBand[];
  interactions: InteractionRule[];
  contraindications: ContraindicationRule[];
  warnings: string[];
  source: string | null;
}

export interface CrossReactivityGroup {
  name: string;
  note: string | null;
  atcPrefixes: string[];
}

export type SourceFormat = 'json' | 'atc';

/** Package identity as reported in `drug_safety.v1.package` (never the rules themselves). */
export interface PackageSummary {
  id: string;
  source_format: SourceFormat;
  version: string;
  provenance: Record<string, unknown>;
  review_state: ReviewState;
  /** Problems found while loading (skipped entries, dropped bands, …): ids and counts, no rule text. */
  issues: DrugSafetyIssue[];
  cross_reactivity: { loaded: boolean; groups: number; source: string | null };
  entries: number;
}

export interface DrugPackage {
  summary: PackageSummary;
  entries: DrugEntry[];
  groups: CrossReactivityGroup[];
}

export interface DrugSafetyIssue {
  id: string;
  reason: string;
  [detail: string]: unknown;
}

/** An active medication of the patient, mapped (or not) to a package entry. */
export interface ActiveMedication {
  name: string;
  entryId: string | null;
  atcCodes: string[];
}

/**
 * What the hub knows of the patient. `complete` only for structured QueryStore records (§9.2); an
 * inline chart is read from text lines the hub can classify and is never complete (defect §13.1 #5).
 */
export interface PatientExposure {
  origin: 'structured' | 'inline_chart' | 'none';
  complete: boolean;
  ageYears: number | null;
  weightKg: number | null;
  medications: ActiveMedication[];
  /** Lower-cased allergen names. */
  allergies: string[];
  /** Lower-cased condition names. */
  conditions: string[];
}

export interface SafetyWarning {
  type: 'overdose' | 'interaction' | 'contraindication';
  drug: string;
  detail: string;
  severity: SourceSeverity | null;
}

export type DrugSafetyStatus = 'checked' | 'limited' | 'unavailable';

export interface Coverage {
  mapping_complete: boolean;
  exposure_complete: boolean;
  execution_complete: boolean;
  active_order_count: number;
  mapped_active_order_count: number;
}

/** The `drug_safety.v1` object (§9.6, clients.md §2.3). */
export interface DrugSafetyResult {
  schema_version: 'drug_safety.v1';
  status: DrugSafetyStatus;
  warnings: SafetyWarning[];
  package: PackageSummary | null;
  coverage: Coverage;
  /** How the patient's medications were identified: `structured` records, `inline_text`, or null (none). */
  identity_confidence: 'structured' | 'inline_text' | null;
  issues: DrugSafetyIssue[];
}

/** Settings of the checks (from DRUG_SAFETY_* in config.ts). */
export interface CheckSettings {
  minInteractionSeverity: Severity;
  weightConceptUuid: string | null;
  weightMaxAgeDays: number;
}
