/**
 * Question/record relevance for the deterministic selector (§5.9 "Tokenisation of text for
 * relevance"). Pure functions: the same text always yields the same terms, so selection is
 * reproducible and unit-testable with tables of cases.
 *
 * Two signals come out of it:
 * - `exact`: an exact term of the question (an id-like token, an ISO date, an explicit-id phrase
 *   or a quoted phrase) occurs as a contiguous token sequence in the record. Matching on whole
 *   tokens is what keeps `id: 123` from matching `1234` and `"ankle"` from matching `ankles`.
 * - `overlap`: how many normalized question terms the record shares. Stop words, bare numbers and
 *   time windows never count, so "the last 6 months" relates to nothing by itself.
 */
import { eachInRuns, mapInRuns, runSteps, type Steps } from '../event-loop';
import { escapeRegExp } from '../regexp';
import type { EvidenceRecord } from './types';

/** One token: alphanumerics joined by single `-_.:/` separators (`CIEL:12345`, `2.5y`, `E11.9`). */
const TOKEN = /[A-Za-z0-9]+(?:[-_.:/][A-Za-z0-9]+)*/g;
const SEPARATORS = /[-_.:/]/g;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** `6mo`, `12-months`, `2.5y`, `3wks`, `48h`: a time window, never an id or evidence. */
const TIME_WINDOW = /^\d+(?:\.\d+)?[-_]?(?:h|hrs?|hours?|d|days?|w|wks?|weeks?|m|mos?|mons?|months?|y|yrs?|years?)$/;
/** Labelled identifiers: the label and the value form one exact phrase (`order number: 12345`). */
const EXPLICIT_ID = /\b(?:concept id|record id|order id|order number|identifier|uuid|code|id)\s*[:#]\s*[A-Za-z0-9]+(?:[-_.:/][A-Za-z0-9]+)*/gi;

/**
 * Phrases in `"…"` or `“…”` (non-empty, up to the first closing quote), left to right as the former
 * `/"([^"]+)"|“([^”]+)”/g` found them. By hand: that regex rescanned the rest of the text from every
 * unclosed `“` (quadratic on a run of them); here each closing quote is searched for once.
 */
function* quotedPhrases(text: string): Steps<string[]> {
  const out: string[] = [];
  // Next index of each closing quote at or after the current search start (-1: none left).
  const nextClose = new Map<string, number>();
  let pauseAt = QUESTION_PIECE_CHARS;
  for (let i = 0; i < text.length; i++) {
    if (i >= pauseAt) {
      pauseAt = i + QUESTION_PIECE_CHARS;
      yield;
    }
    const close = text[i] === '"' ? '"' : text[i] === '“' ? '”' : null;
    if (close === null) continue;
    let end = nextClose.get(close);
    if (end === undefined || (end !== -1 && end <= i)) nextClose.set(close, (end = text.indexOf(close, i + 1)));
    if (end > i + 1) {
      out.push(text.slice(i + 1, end));
      i = end;
    }
  }
  return out;
}

/**
 * Words that say nothing about which evidence is relevant: function words, question words, and
 * chart vocabulary every question uses (`patient`, `record`, `latest`, time units).
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against ago all also am an and any anything are as at be been before being below between both but by ' +
    'can chart code codes could current currently d day days did do does doing done during each ever every few find for from ' +
    'further get give given had has have having he her here hers him his how i if in into is it its just know last latest ' +
    'list ll m many may me mo month months more mos most much my need no nor not now of off on once only or other our out ' +
    'over own past patient patients please provide re record records s same she should show since so some such summarise ' +
    'summarize summary t tell than thank thanks that the their them then there these they this those through to too under ' +
    'until up us ve very was we week weeks were what when where which while who whom why will with wk wks would year years ' +
    'you your yr yrs'
  ).split(' '),
);

/**
 * Synonyms folded onto one term so a question and a record that name the same thing overlap.
 * A Map, not an object lookup: a token such as `constructor` must not resolve to Object.prototype's.
 */
const ALIASES: ReadonlyMap<string, string> = new Map(Object.entries({
  allergies: 'allergy', allergic: 'allergy',
  visit: 'encounter', visits: 'encounter', appointment: 'encounter', appointments: 'encounter', encounters: 'encounter',
  medications: 'medication', medicine: 'medication', medicines: 'medication', drug: 'medication', drugs: 'medication',
  prescription: 'medication', prescriptions: 'medication', regimen: 'medication', regimens: 'medication', drugorder: 'medication',
  condition: 'diagnosis', conditions: 'diagnosis', problem: 'diagnosis', problems: 'diagnosis', diagnoses: 'diagnosis',
  labs: 'lab', laboratory: 'lab',
  results: 'result',
  vaccine: 'immunization', vaccines: 'immunization', vaccination: 'immunization', vaccinations: 'immunization', immunizations: 'immunization',
  born: 'age', birth: 'age', dob: 'age', old: 'age',
  guideline: 'guidance', guidelines: 'guidance',
  tuberculosis: 'tb',
  art: 'antiretroviral',
  weights: 'weight',
  orders: 'order', ordered: 'order',
  tests: 'test',
  therapies: 'therapy',
}));

/** Lower-cased tokens of `text`, in order. */
export function tokenize(text: string): string[] {
  return (text.match(TOKEN) ?? []).map((t) => t.toLowerCase());
}

/** Digits once separators are removed: `2006-05-18`, `12:30`, `2.5`. */
export function isNumericLike(token: string): boolean {
  return /^\d+$/.test(token.replace(SEPARATORS, ''));
}

export function isTimeWindow(token: string): boolean {
  return TIME_WINDOW.test(token.toLowerCase());
}

function alias(term: string): string {
  if (term.startsWith('recommend')) return 'guidance';
  return ALIASES.get(term) ?? term;
}

/** A lower-cased token as a normalized term, or null when it carries no relevance. */
export function normalizeTerm(token: string): string | null {
  if (STOP_WORDS.has(token) || isNumericLike(token) || isTimeWindow(token)) return null;
  return alias(token);
}

/** Normalized terms of `text` (stop words, numbers and time windows removed, aliases applied). */
export function normalizedTerms(text: string): Set<string> {
  return runSteps(normalizedTermsOf(tokenize(text)));
}

function* normalizedTermsOf(lowerTokens: readonly string[]): Steps<Set<string>> {
  const terms = new Set<string>();
  yield* eachInRuns(lowerTokens, (token) => {
    const term = normalizeTerm(token);
    if (term !== null) terms.add(term);
  });
  return terms;
}

/**
 * Acronyms (`WHO`, `ART`, `US`): all upper-case tokens of two or more characters with a letter.
 * They bypass the stop list because the upper case marks them as names, not function words.
 */
export function acronymTerms(text: string): Set<string> {
  return runSteps(acronymTermsOf(text.match(TOKEN) ?? []));
}

function* acronymTermsOf(rawTokens: readonly string[]): Steps<Set<string>> {
  const terms = new Set<string>();
  yield* eachInRuns(rawTokens, (raw) => {
    if (raw.length < 2 || raw !== raw.toUpperCase() || !/[A-Z]/.test(raw) || isTimeWindow(raw)) return;
    terms.add(alias(raw.toLowerCase()));
  });
  return terms;
}

/** Every term `text` contributes to overlap: normalized terms and acronyms. */
export function relevanceTerms(text: string): Set<string> {
  const raw = text.match(TOKEN) ?? [];
  return runSteps(relevanceTermsOf(raw, raw.map((t) => t.toLowerCase())));
}

function* relevanceTermsOf(rawTokens: readonly string[], lowerTokens: readonly string[]): Steps<Set<string>> {
  const terms = yield* normalizedTermsOf(lowerTokens);
  for (const a of yield* acronymTermsOf(rawTokens)) terms.add(a);
  return terms;
}

function isExactToken(token: string): boolean {
  if (!/[-_:/]/.test(token) || isTimeWindow(token)) return false;
  return /[a-z]/.test(token) || ISO_DATE.test(token);
}

/**
 * Exact terms of a question as token sequences: id-like tokens and ISO dates, explicit-id phrases
 * (the whole labelled phrase) and quoted phrases. Deduplicated, in order of discovery.
 */
export function exactTerms(question: string): string[][] {
  return runSteps(exactTermsOf(question, tokenize(question)));
}

function* exactTermsOf(question: string, lowerTokens: readonly string[]): Steps<string[][]> {
  const found: string[][] = [];
  const seen = new Set<string>();
  const add = (seq: string[]) => {
    const key = seq.join(' ');
    if (seq.length === 0 || seen.has(key)) return;
    seen.add(key);
    found.push(seq);
  };
  yield* eachInRuns(lowerTokens, (token) => {
    if (isExactToken(token)) add([token]);
  });
  for (const m of question.matchAll(EXPLICIT_ID)) add(tokenize(m[0].toLowerCase()));
  yield;
  yield* eachInRuns(yield* quotedPhrases(question), (phrase) => add(tokenize(phrase)));
  return found;
}

/** True when `seq` occurs contiguously in `tokens`. */
export function containsSequence(tokens: readonly string[], seq: readonly string[]): boolean {
  if (seq.length === 0 || seq.length > tokens.length) return false;
  outer: for (let i = 0; i + seq.length <= tokens.length; i++) {
    for (let j = 0; j < seq.length; j++) if (tokens[i + j] !== seq[j]) continue outer;
    return true;
  }
  return false;
}

export interface QuestionRelevance {
  terms: Set<string>;
  exact: string[][];
  /**
   * Every lower-case spelling a record token can have to count for a question term (the term, the
   * synonyms folded onto it, `recommend` for guidance). A record whose lower-cased text contains none
   * of them cannot overlap, so it is not tokenised at all: most of a long chart shares no term.
   */
  spellings: string[];
  /**
   * The spellings as one ASCII case-insensitive search, which tells the same without lower-casing a
   * copy of every record (see mentionsSpelling); null when there are too many to search at once.
   */
  spellingSearch: RegExp | null;
}

export function analyzeQuestion(question: string): QuestionRelevance {
  return runSteps(analyzeQuestionSteps(question));
}

/** Characters no token contains: a question cut at one of them has the tokens of the whole. */
const OUTSIDE_TOKENS = /[^A-Za-z0-9\-_.:/]/g;
/** Characters per piece of a long question's tokenisation. */
const QUESTION_PIECE_CHARS = 16 * 1024;

/** `question.match(TOKEN)`, a piece of the question at a time (pieces end before a non-token character). */
function* rawTokensOf(question: string): Steps<string[]> {
  const raw: string[] = [];
  for (let from = 0; from < question.length; ) {
    OUTSIDE_TOKENS.lastIndex = Math.min(question.length, from + QUESTION_PIECE_CHARS);
    const cut = OUTSIDE_TOKENS.exec(question)?.index ?? question.length;
    OUTSIDE_TOKENS.lastIndex = 0;
    for (const t of question.slice(from, cut).match(TOKEN) ?? []) raw.push(t);
    from = cut;
    yield;
  }
  return raw;
}

/** analyzeQuestion with pause points, for a long question (a client can send a megabyte of one). */
export function* analyzeQuestionSteps(question: string): Steps<QuestionRelevance> {
  // One tokenisation serves the terms, the acronyms and the exact terms.
  const raw = yield* rawTokensOf(question);
  const lower = yield* mapInRuns(raw, (t) => t.toLowerCase());
  const terms = yield* relevanceTermsOf(raw, lower);
  const spellings = spellingsOf(terms);
  return { terms, exact: yield* exactTermsOf(question, lower), spellings, spellingSearch: spellingSearchOf(spellings) };
}

/**
 * More spellings than this, or longer ones together (a client's megabyte of question, one token of
 * which is a megabyte long), are looked for one at a time: V8 refuses a pattern that large.
 */
const MAX_SEARCHED_SPELLINGS = 64;
const MAX_SEARCHED_CHARS = 4096;
/** Spellings are ASCII (TOKEN is); the case-insensitive search below is sound only for ASCII ones. */
const ASCII = /^[\x00-\x7f]*$/;

function spellingSearchOf(spellings: readonly string[]): RegExp | null {
  if (spellings.length === 0 || spellings.length > MAX_SEARCHED_SPELLINGS) return null;
  if (spellings.reduce((n, s) => n + s.length, 0) > MAX_SEARCHED_CHARS || !spellings.every((s) => ASCII.test(s))) return null;
  // Literal alternatives, each tried once per position: linear in the text.
  return new RegExp(spellings.map(escapeRegExp).join('|'), 'i');
}

/**
 * Whether some part of a record's text contains a spelling of a question term, case-insensitively; when
 * none does, no token of the record can overlap the question. The search is sound because a record
 * overlaps only through an ASCII token (TOKEN) that lower-cases to a spelling, and a non-Unicode `i`
 * search for ASCII text finds exactly its ASCII case variants. The parts are tested one by one (no joined
 * copy, no lower-cased copy): a spelling is one token, never spanning the line break that joins them.
 */
function mentionsSpelling(question: QuestionRelevance, parts: readonly string[]): boolean {
  const search = question.spellingSearch;
  if (search) return parts.some((p) => search.test(p));
  if (question.spellings.length === 0) return false;
  return parts.some((p) => {
    const lower = p.toLowerCase();
    return question.spellings.some((s) => lower.includes(s));
  });
}

function spellingsOf(terms: ReadonlySet<string>): string[] {
  const out = new Set(terms);
  for (const [synonym, term] of ALIASES) if (terms.has(term)) out.add(synonym);
  if (terms.has('guidance')) out.add('recommend');
  return [...out];
}

/**
 * The text a record is judged by: resource type, title and text (§5.9). Knowledge references also
 * contribute their authority, so a question naming an authority selects its guidance.
 */
export function recordRelevanceText(record: EvidenceRecord): string {
  return relevanceParts(record).join('\n');
}

function relevanceParts(record: EvidenceRecord): string[] {
  const parts = [record.resourceType];
  const title = record.metadata.title;
  if (typeof title === 'string') parts.push(title);
  parts.push(record.text);
  const authority = record.metadata.authority;
  if (record.resourceType === 'KnowledgeReference' && typeof authority === 'string') parts.push(authority);
  return parts;
}

export interface RecordRelevance {
  exact: boolean;
  overlap: number;
}

/** Relevance of one record's text to an analysed question. */
export function scoreText(question: QuestionRelevance, text: string): RecordRelevance {
  if (question.exact.length === 0 && !mentionsSpelling(question, [text])) return { exact: false, overlap: 0 };
  return scoreTokens(question, text);
}

/** scoreText without the spelling pre-check (exported for the equivalence test). */
export function scoreTokens(question: QuestionRelevance, text: string): RecordRelevance {
  // One pass over the raw tokens: only terms the question has are tracked, so a long chart costs
  // one regex scan per record (the selector scores every record of the ledger on every turn).
  const tokens: string[] = [];
  const matched = new Set<string>();
  const wantTokens = question.exact.length > 0;
  for (const raw of text.match(TOKEN) ?? []) {
    const lower = raw.toLowerCase();
    if (wantTokens) tokens.push(lower);
    // Question terms never include stop words, numbers or time windows, so the (costlier) filter
    // runs only for a token whose term the question has.
    const aliased = alias(lower);
    if (question.terms.has(aliased) && normalizeTerm(lower) !== null) matched.add(aliased);
    if (raw.length >= 2 && raw !== lower && raw === raw.toUpperCase() && !isTimeWindow(raw)) {
      const acronym = alias(lower);
      if (question.terms.has(acronym)) matched.add(acronym);
    }
  }
  const exact = question.exact.length > 0 && question.exact.some((seq) => containsSequence(tokens, seq));
  return { exact, overlap: matched.size };
}

export function scoreRecord(question: QuestionRelevance, record: EvidenceRecord): RecordRelevance {
  // Most records of a long chart share no term with the question: they are judged without joining their parts.
  if (question.exact.length === 0) {
    const parts = relevanceParts(record);
    return mentionsSpelling(question, parts) ? scoreTokens(question, parts.join('\n')) : { exact: false, overlap: 0 };
  }
  return scoreTokens(question, recordRelevanceText(record));
}
