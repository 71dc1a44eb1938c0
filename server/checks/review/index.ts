/** Label-only review (§7.3 Target, §7.6–§7.7 Target): pure parsing and judging, no I/O, no clock. */
export { judgeReview, parseRewriteVerdict, REWRITE_VERDICT_RESPONSE_FORMAT } from './answer-review';
export { confirmedStatements, renderConfirmed, type ConfirmedStatement } from './confirmed';
export { flagNotes, INDEPTH_VERDICT_RESPONSE_FORMAT, numberedClaims, parseInDepthVerdict } from './indepth-review';
export { parseAnswerToReview } from './payload';
