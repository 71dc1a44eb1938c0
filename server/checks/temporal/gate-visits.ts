/**
 * upcoming_date and last_visit (§6.3). Both bind a date to a phrase before judging it: a date is an
 * "upcoming" claim only when a future framing ("next appointment is", "scheduled for") introduces it
 * in the same clause, is not negated and is not historical ("previous anticipated follow-up", "was
 * scheduled for"); a date is a last-visit claim only when a positive "last/most recent visit" phrase
 * introduces it. Unbound dates are never judged.
 */
import { makeCheck, noResult, type CheckResult, type GateContext, type Patch } from './gate-common';
import { countWords, findIsoDates, negatedBefore, splitClauses, splitSentences, trimmedEnd, wordsBefore, type IsoDate, type Piece } from './text';
import type { AppointmentCandidate, GateCheck } from './types';

const UPCOMING_TRIGGER = /\b(?:upcoming|future|next|scheduled|appointments?|follow[- ]?ups?|return[- ]visits?)\b/i;
const FUTURE_WORD = '(?:upcoming|future|next|further|subsequent|forthcoming|scheduled|planned|pending|booked)';
const APPT_NOUN = '(?:appointments?|visits?|follow[- ]?ups?|return[- ]visits?|reviews?|clinic\\s+(?:visits?|dates?)|dates?)';
const FILLER =
  '(?:a|an|any|the|other|more|documented|recorded|known|listed|further|have|has|show|shows|list|lists|document|documents|record|records|mention|mentions|contain|contains|include|includes|indicate|indicates|appear|appears|be|been|there|is|are|currently|yet)';
/** A present-tense statement that nothing is upcoming, bounded to one clause. */
const NO_UPCOMING = [
  new RegExp(`(?:\\bno|\\bnot|\\bnone|\\bwithout|n't)\\s+(?:${FILLER}\\s+){0,3}${FUTURE_WORD}\\b(?:[\\s-]+\\w+){0,2}?[\\s-]+${APPT_NOUN}\\b`, 'i'),
  new RegExp(`(?:\\bno|\\bnot\\s+any|\\bwithout)\\s+(?:${FILLER}\\s+){0,2}${APPT_NOUN}\\b(?:\\s+(?:is|are|has|have|been|currently|yet|documented|recorded|found|listed))*\\s+(?:scheduled|planned|booked|upcoming|pending|after|beyond)\\b`, 'i'),
  /\b(?:none|nothing)\s+(?:(?:is|are|has|have|been|currently)\s+)*(?:scheduled|planned|booked|upcoming|pending)\b/i,
];
/** Subordinate clauses report background, not the answer's claim ("Although no follow-up …"). */
const SUBORDINATE = /^(?:although|though|because|since|when|whenever|after|before|if|unless|while|whereas|as)\b/i;
/** Phrases that frame the following date as a future appointment. */
const FRAME = new RegExp(
  `\\b(?:(?:next|upcoming|future|forthcoming|subsequent)\\s+(?:[\\w-]+\\s+){0,2}?${APPT_NOUN}|scheduled\\s+(?:for|on)|due\\s+(?:on|for|by)|planned\\s+(?:for|on)|booked\\s+(?:for|on)|expected\\s+(?:on|back)|anticipated|will\\s+(?:be\\s+seen|return|come\\s+back|attend)|(?:should|to)\\s+return)\\b`,
  'gi',
);
const HISTORICAL = /\b(?:previous|previously|prior|earlier|past|last|latest|most recent|historical|historically|former|formerly|originally|initially|was|were|had|missed|attended|completed|already)\b/i;
const HISTORICAL_ALL = new RegExp(HISTORICAL.source, 'gi');
const DATE_BEFORE_FRAME = /^\s*(?:\[[^\]]*\]\s*)?(?:is|will\s+be)\s+(?:the\s+)?(?:patient['’]s\s+)?$/i;
const FRAME_REACH = 80;

const LAST_VISIT_TRIGGER = /\b(?:last|most[\s-]recent|latest)\b[^.?!\n]{0,40}?\b(?:visit|encounter|consultation|seen)\b/i;
const LAST_VISIT = new RegExp(
  '\\b(?:(?:last|most[\\s-]recent|latest)\\s+(?:(?:clinical|clinic|documented|recorded|known|in-person|outpatient|follow[- ]?up|hiv|art|care)\\s+){0,2}(?:visit|encounter|consultation)s?|(?:was\\s+)?(?:last|most\\s+recently)\\s+seen|seen\\s+(?:most\\s+recently|last))\\b',
  'gi',
);
/** "the last visit before ART start" is not the overall last visit. */
const QUALIFIED = /^\s*(?:before|prior\s+to|preceding|until|ahead\s+of|of\s+\d{4}|in\s+\d{4})\b/i;
const OTHER_DATE_FRAME = /\b(?:return|next|scheduled|upcoming|appointment|follow[- ]?up|started|initiat\w*|enrol\w*|diagnos\w*|admi\w*|discharg\w*|born|birth|due|planned)\b/i;
const LAST_VISIT_REACH = 120;
/**
 * "last visit was an adult return visit on D", "most recent encounter was a TB follow-up visit on D":
 * the visit type is the predicate of the last-visit phrase, so its "return"/"follow-up" names the
 * kind of visit, not another date's event.
 */
const VISIT_TYPE_PREDICATE = /^\s*(?:was|is)\s+(?:an?|the)\s+(?:[\w-]+\s+){0,3}(?:visit|encounter|consultation)\s+(?:on|dated)\s+$/i;
const PREPOSITION_BEFORE = /\b(?:at|during|since|from|after|before|by|in|on|of|for|until)\s+(?:the\s+|this\s+|that\s+|his\s+|her\s+|their\s+|patient['’]s\s+)*$/i;
/** The words PREPOSITION_BEFORE lets stand between its preposition and the phrase. */
const DETERMINER = /^(?:the|this|that|his|her|their|patient['’]s)$/i;
/**
 * `[5] (on D`, `, dated [5] D`. Written so that no two blank runs or bracket runs sit side by side
 * (`[(,:]?\s*(?:on|dated|of)?\s*` split one blank run every way): the same texts, read once.
 */
const ATTACHED_DATE = /^\s*(?:\[[^\]]*\]\s*)*(?:(?:[(,:]\s*(?:(?:on|dated|of)\s*)?|(?:on|dated|of)\s*)(?:\[[^\]]*\]\s*)*)?$/i;
/** "D [5] was the patient's last visit"; as above, each blank run has one owner. */
const DATE_BEFORE_PHRASE = /^\s*(?:\[[^\]]*\]\s*)?(?:[,:]\s*)?(?:(?:was|is|marks)\s*)?(?:the\s+)?(?:patient['’]s\s+)?$/i;
const SPACE = /\s/;
const SHORT_ANSWER_WORDS = 12;

const UPCOMING_FALLBACK_NOTE = 'No upcoming appointment is documented after';

// ---- upcoming_date --------------------------------------------------------------------------------

export function checkUpcoming(ctx: GateContext): CheckResult {
  if (!UPCOMING_TRIGGER.test(`${ctx.question}\n${ctx.answer}`)) return noResult();
  const cands = ctx.facts.appointment_candidates;
  const checks: GateCheck[] = [];
  let patch: Patch | null = null;
  const none = noUpcomingClause(ctx.answer);
  // Without a reference date nothing is known to be future or past: "none upcoming" is not judged.
  if (none && ctx.facts.reference_date !== null) {
    if (cands.future.length > 0) {
      checks.push(makeCheck('upcoming_date', 'fail', 'block', none, `The answer says nothing is upcoming, but the chart documents a future candidate on ${cands.future[0].date}.`, cands.future.map((c) => c.index)));
      patch = futurePatch(cands.future[0]);
    } else {
      checks.push(makeCheck('upcoming_date', 'pass', 'warn', none, 'The answer says nothing is upcoming and the chart documents no future return-visit/appointment candidate.', cands.all.map((c) => c.index)));
    }
  }
  for (const framed of framedDates(ctx.answer)) {
    const judged = judgeFramed(ctx, framed);
    if (judged) checks.push(judged);
    if (judged?.status === 'fail') patch ??= pastFramedPatch(ctx);
  }
  const warned = appointmentWording(ctx);
  if (warned) checks.push(warned);
  return { checks, patch };
}

function noUpcomingClause(answer: string): string | null {
  for (const sentence of splitSentences(answer)) {
    for (const clause of splitClauses(sentence)) {
      if (SUBORDINATE.test(clause.text)) continue;
      if (NO_UPCOMING.some((re) => re.test(clause.text))) return clause.text;
    }
  }
  return null;
}

interface FramedDate {
  iso: string;
  clause: string;
}

/** Dates introduced by a future framing inside one clause, excluding negated and historical ones. */
function framedDates(answer: string): FramedDate[] {
  const out: FramedDate[] = [];
  for (const sentence of splitSentences(answer)) {
    for (const clause of splitClauses(sentence)) {
      // What depends on the clause alone is read once, not once per framing in it.
      const view = clauseView(clause.text);
      for (const m of clause.text.matchAll(FRAME)) {
        // A framing inside a "nothing upcoming" statement ("does not document a future visit after D")
        // is that statement's date bound, not an appointment.
        if (negatedBefore(clause.text, m.index, 3) || view.deniesUpcoming()) continue;
        const frameEnd = m.index + m[0].length;
        const date = dateAfter(view.dates(), frameEnd) ?? dateBefore(clause, view.dates(), m.index);
        if (!date) continue;
        const lead = wordsBefore(clause.text, m.index, 6).join(' ');
        const between = date.start >= frameEnd ? clause.text.slice(frameEnd, date.start) : '';
        // Past tense anywhere after the framing ("the next visit after D1 was on D2") is narration, and a
        // date introduced by after/since/before is a reference point, not the appointment.
        if (HISTORICAL.test(lead) || view.lastHistorical() >= frameEnd) continue;
        if (date.start >= frameEnd && /\b(?:after|since|before|until|from)\s*(?:(?:the|this|that|her|his|their|patient['’]s)\s+)?$/i.test(between)) continue;
        if (!out.some((o) => o.iso === date.iso)) out.push({ iso: date.iso, clause: clause.text });
      }
    }
  }
  return out;
}

interface ClauseView {
  dates: () => IsoDate[];
  deniesUpcoming: () => boolean;
  /**
   * Where the clause's last HISTORICAL word starts (-1: none). Its words never overlap, so a
   * framing ending at `e` has one after it (HISTORICAL.test(text.slice(e))) exactly when this is ≥ e.
   */
  lastHistorical: () => number;
}

function clauseView(text: string): ClauseView {
  let dates: IsoDate[] | undefined;
  let denies: boolean | undefined;
  let historical: number | undefined;
  return {
    dates: () => (dates ??= findIsoDates(text)),
    deniesUpcoming: () => (denies ??= NO_UPCOMING.some((re) => re.test(text))),
    lastHistorical: () => (historical ??= [...text.matchAll(HISTORICAL_ALL)].pop()?.index ?? -1),
  };
}

function dateAfter(dates: readonly IsoDate[], from: number): IsoDate | null {
  const d = dates.find((x) => x.start >= from);
  return d && d.start - from <= FRAME_REACH ? d : null;
}

/** "2026-04-01 is the next appointment". */
function dateBefore(clause: Piece, dates: readonly IsoDate[], frameStart: number): IsoDate | null {
  const d = dates.filter((x) => x.end <= frameStart).pop();
  return d && DATE_BEFORE_FRAME.test(clause.text.slice(d.end, frameStart)) ? d : null;
}

function judgeFramed(ctx: GateContext, framed: FramedDate): GateCheck | null {
  const ref = ctx.facts.reference_date;
  if (ref === null) return null;
  const cands = ctx.facts.appointment_candidates;
  const same = cands.all.filter((c) => c.date === framed.iso).map((c) => c.index);
  if (framed.iso < ref) {
    const latest = latestPastReturnVisit(ctx);
    return makeCheck('upcoming_date', 'fail', 'block', framed.clause, `${framed.iso} is framed as upcoming but is before the reference date ${ref}.`, latest ? [latest.index, ...same] : same);
  }
  if (framed.iso === ref) {
    // The reference date itself may still be ahead within the day; report it, do not block.
    return makeCheck('upcoming_date', 'warn', 'warn', framed.clause, `${framed.iso} is framed as upcoming and equals the reference date.`, same);
  }
  if (same.length > 0) return makeCheck('upcoming_date', 'pass', 'block', framed.clause, `${framed.iso} is a documented future return-visit/appointment candidate.`, same);
  return null;
}

/** (d): the chart's candidates are observations ("Return visit date"), not Appointment resources. */
function appointmentWording(ctx: GateContext): GateCheck | null {
  const all = ctx.facts.appointment_candidates.all;
  if (all.length === 0 || !/\bappointments?\b/i.test(ctx.answer) || /\breturn[- ]visit/i.test(ctx.answer)) return null;
  if (all.some((c) => /appointment/i.test(c.concept))) return null;
  const sentence = splitSentences(ctx.answer).find((s) => /\bappointments?\b/i.test(s.text))?.text ?? ctx.answer;
  return makeCheck('upcoming_date', 'warn', 'warn', sentence, 'The chart documents return-visit date observations, not formal Appointment resources.', all.map((c) => c.index));
}

function futurePatch(c: AppointmentCandidate): Patch {
  return { answer: `The chart documents a future return-visit/appointment candidate on ${c.date} [${c.index}].`, citations: [c.index] };
}

function latestPastReturnVisit(ctx: GateContext): { date: string; index: number } | null {
  const rv = ctx.facts.return_visit_dates.filter((r) => r.relation_to_reference === 'past').map((r) => ({ date: r.value_date, index: r.index }));
  const pool = rv.length > 0 ? rv : ctx.facts.appointment_candidates.past.map((c) => ({ date: c.date, index: c.index }));
  return pool.reduce<{ date: string; index: number } | null>((best, c) => (best === null || c.date >= best.date ? c : best), null);
}

/** A past date framed as upcoming: point at the real future candidate when one exists. */
function pastFramedPatch(ctx: GateContext): Patch {
  const future = ctx.facts.appointment_candidates.future;
  if (future.length > 0) return futurePatch(future[0]);
  const head = `${UPCOMING_FALLBACK_NOTE} ${ctx.facts.reference_date}.`;
  const latest = latestPastReturnVisit(ctx);
  if (!latest) return { answer: head, citations: [] };
  return { answer: `${head} The latest return-visit date found is ${latest.date}, which is before the reference date [${latest.index}].`, citations: [latest.index] };
}

// ---- last_visit -------------------------------------------------------------------------------------

interface LastVisitClaim {
  iso: string;
  claim: string;
}

export function checkLastVisit(ctx: GateContext): CheckResult {
  if (!mentionsLastVisit(ctx.question) && !mentionsLastVisit(ctx.answer)) return noResult();
  const claims = lastVisitClaims(ctx.answer, mentionsLastVisit(ctx.question));
  if (claims.length === 0) return noResult();
  const enc = ctx.facts.last_clinical_encounter;
  const checks: GateCheck[] = [];
  let patch: Patch | null = null;
  for (const c of claims) {
    if (enc === null) {
      checks.push(makeCheck('last_visit', 'fail', 'block', c.claim, 'The answer asserts a last visit, but the chart has no explicit visit/encounter record.', ctx.facts.latest_clinical_activity?.indices ?? []));
      patch ??= noEncounterPatch(ctx);
    } else if (c.iso !== enc.date) {
      checks.push(makeCheck('last_visit', 'fail', 'block', c.claim, `The answer gives ${c.iso} as the last visit; the most recent documented encounter is ${enc.date}.`, enc.indices));
      patch ??= { answer: `The most recent clinical visit/encounter documented in the chart is ${enc.date} ${enc.indices.map((i) => `[${i}]`).join('')}.`, citations: [...enc.indices] };
    } else {
      checks.push(makeCheck('last_visit', 'pass', 'block', c.claim, `${c.iso} is the most recent documented encounter.`, enc.indices));
    }
  }
  return { checks, patch };
}

function mentionsLastVisit(text: string): boolean {
  return [...text.matchAll(new RegExp(LAST_VISIT_TRIGGER, 'gi'))].some((m) => !/\breturn[- ]visit/i.test(m[0]));
}

function noEncounterPatch(ctx: GateContext): Patch {
  const head = 'No explicit visit/encounter record is documented in the available chart.';
  const act = ctx.facts.latest_clinical_activity;
  if (!act) return { answer: head, citations: [] };
  return { answer: `${head} The latest dated clinical activity is ${act.date} ${act.indices.map((i) => `[${i}]`).join('')}.`, citations: [...act.indices] };
}

/** Dates the answer asserts as the last visit. */
function lastVisitClaims(answer: string, questionAsks: boolean): LastVisitClaim[] {
  const out: LastVisitClaim[] = [];
  for (const sentence of splitSentences(answer)) {
    const view = sentenceView(sentence.text);
    for (const m of sentence.text.matchAll(LAST_VISIT)) {
      const iso = boundLastVisitDate(sentence, view, m.index, m.index + m[0].length);
      if (iso && !out.some((o) => o.iso === iso)) out.push({ iso, claim: sentence.text });
    }
  }
  if (out.length > 0 || !questionAsks) return out;
  return shortAnswerClaim(answer);
}

/** A sentence's clauses and dates, computed once for all of its last-visit phrases. */
function sentenceView(text: string): { clauses: () => Piece[]; dates: () => IsoDate[] } {
  let clauses: Piece[] | undefined;
  let dates: IsoDate[] | undefined;
  return { clauses: () => (clauses ??= splitClauses({ text, start: 0 })), dates: () => (dates ??= findIsoDates(text)) };
}

/**
 * PREPOSITION_BEFORE on `text.slice(0, end)`, read from the last word before the trailing run of
 * "the/this/…" words: a match can start no earlier, and the `$`-anchored test otherwise ran over
 * the whole prefix for every last-visit phrase.
 */
function prepositionBefore(text: string, end: number): boolean {
  let from = end;
  for (;;) {
    const wordEnd = trimmedEnd(text, from);
    let wordStart = wordEnd;
    while (wordStart > 0 && !SPACE.test(text[wordStart - 1])) wordStart -= 1;
    from = wordStart;
    if (wordStart === wordEnd || !DETERMINER.test(text.slice(wordStart, wordEnd))) break;
  }
  return PREPOSITION_BEFORE.test(text.slice(from, end));
}

function boundLastVisitDate(sentence: Piece, view: ReturnType<typeof sentenceView>, start: number, end: number): string | null {
  const text = sentence.text;
  if (negatedBefore(text, start, 3) || QUALIFIED.test(text.slice(end))) return null;
  const clause = view.clauses().find((c) => start >= c.start && start < c.start + c.text.length);
  const clauseEnd = clause ? clause.start + clause.text.length : text.length;
  const dates = view.dates();
  const after = dates.find((d) => d.start >= end);
  if (after && after.end <= clauseEnd && after.start - end <= LAST_VISIT_REACH) {
    const between = text.slice(end, after.start);
    if ((OTHER_DATE_FRAME.test(between) && !VISIT_TYPE_PREDICATE.test(between)) || /\b(?:not|no|never)\b|n't\b/i.test(between)) return null;
    // "recorded at the last visit was D": as a prepositional object the phrase owns only a date
    // attached to it ("at the last visit on D"); the clause's verb belongs to another subject.
    if (prepositionBefore(text, start) && !ATTACHED_DATE.test(between)) return null;
    return after.iso;
  }
  const before = dates.filter((d) => d.end <= start).pop();
  if (before && DATE_BEFORE_PHRASE.test(text.slice(before.end, start))) return before.iso;
  return null;
}

/**
 * `text.replace(/\[[^\]]*\]/g, ' ')` by hand: the pattern re-read the rest of the text from every
 * `[` that has no `]` after it.
 */
function blankBrackets(text: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const open = text.indexOf('[', at);
    const close = open < 0 ? -1 : text.indexOf(']', open);
    if (close < 0) return out + text.slice(at);
    out += `${text.slice(at, open)} `;
    at = close + 1;
  }
}

/** "2006-05-18 [7]." answering "When was the last visit?": a short, unframed, single-date answer. */
function shortAnswerClaim(answer: string): LastVisitClaim[] {
  const dates = [...new Set(findIsoDates(answer).map((d) => d.iso))];
  const plain = blankBrackets(answer);
  if (dates.length !== 1 || countWords(plain) > SHORT_ANSWER_WORDS) return [];
  if (OTHER_DATE_FRAME.test(plain) || /\b(?:no|not|never|none)\b|n't\b/i.test(plain)) return [];
  return [{ iso: dates[0], claim: answer }];
}
