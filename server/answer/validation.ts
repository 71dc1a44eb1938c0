/** The statuses of `answerValidation` (§7.4) and the label each one shows. */
export const VALIDATION_LABELS = {
  checking: 'Checking answer',
  checked: 'Checked',
  edited: 'Updated after check',
  needs_review: 'Needs review',
  unavailable: 'Check unavailable',
} as const;

export type ValidationStatus = keyof typeof VALIDATION_LABELS;
