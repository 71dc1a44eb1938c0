/**
 * Whether a question is about time (sent to QueryStore's context slice as `temporal=true|false`, which
 * decides whether it adds recency anchors). A word scan, not a model: a time word, a relative period or
 * a date in the question is enough; QueryStore interprets the raw question itself (`interpret=true`).
 */
const TIME_WORDS = new Set([
  'when', 'last', 'latest', 'recent', 'recently', 'since', 'ago', 'before', 'after', 'until', 'during',
  'trend', 'trends', 'trending', 'change', 'changed', 'changes', 'changing', 'history', 'previous', 'previously',
  'prior', 'first', 'earliest', 'newest', 'oldest', 'date', 'dates', 'dated', 'today', 'yesterday', 'tomorrow',
  'day', 'days', 'week', 'weeks', 'month', 'months', 'year', 'years', 'yr', 'yrs', 'mo', 'mos', 'timeline',
  'over', 'next', 'due', 'overdue', 'follow', 'followup', 'return', 'visit', 'visits', 'appointment', 'appointments',
  'rising', 'rose', 'falling', 'fell', 'increase', 'increased', 'decrease', 'decreased', 'improved', 'worsened', 'long',
]);

/** `6mo`, `12m`, `2y`, `3wk`: a number glued to a unit. */
const GLUED_PERIOD = /^\d+(?:mo|mos|m|y|yr|yrs|w|wk|wks|d)$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

export function isTemporalQuestion(question: string): boolean {
  // Tokens are runs of letters, digits and '-'; each is looked at once (linear).
  for (const token of question.toLowerCase().match(/[\p{L}\p{N}-]+/gu) ?? []) {
    if (TIME_WORDS.has(token) || GLUED_PERIOD.test(token) || ISO_DATE.test(token)) return true;
  }
  return false;
}
