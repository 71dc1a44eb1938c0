/**
 * Which extracted units are safety-critical (the read plane's safety sweep surfaces them for a patient's
 * concepts whatever their rank): every unit of a boxed warning or a contraindications section, and the
 * drug-interaction statements that tell the prescriber to act (monitor, avoid, adjust, do not co-administer…).
 * A descriptive interaction sentence ("There have been reports of …") is not.
 */
import { hasDirectiveCue } from './text';
import type { SectionKind } from './types';

export function isSafetyCritical(kind: SectionKind, sentence: string): boolean {
  if (kind === 'boxed_warning' || kind === 'contraindication') return true;
  if (kind === 'interaction') return hasDirectiveCue(sentence) || /\bcontraindicated\b/iu.test(sentence);
  return false;
}
