/**
 * Trend claims of an answer (§6.3 single_point_trend / trend_direction): each trend or direction word
 * bound to the series it talks about. Binding is local: the nearest series mention in the word's own
 * clause (with coordinated names: "weight and height both increased"), else the subject carried over
 * from earlier in the sentence, else — only for a pronoun or omitted subject ("It then fell") — the
 * nearest earlier mention or the single selected series. A clause that says the trend cannot be
 * determined makes no claim (§13.1 #6).
 */
import type { SelectedSeries } from './gate-common';
import { coordinatedGroup, findMentions, type Mention } from './gate-series';
import { codePointBefore, countWhile, negatedBefore, splitClauses, splitSentences, wordsAfter, wordsBefore, type Piece } from './text';
import type { NumericSeries } from './types';

export type Direction = 'up' | 'down' | 'flat' | 'trend';

export interface TrendClaim {
  series: NumericSeries;
  direction: Direction;
  /** "not gaining": the claim is "not up", which only an upward series contradicts. */
  negated: boolean;
  /** The clause in answer coordinates. */
  clause: Piece;
  sentence: Piece;
  word: string;
  /** Where the word starts in `clause.text`. */
  at: number;
}

const FLAT_WORDS = /\b(?:unchanged|no change|not changed|did not change|didn['’]t change|has not changed|hasn['’]t changed|remained (?:the same|unchanged|constant)|stayed (?:the same|constant)|constant)\b/gi;
const UP_WORDS = /\b(?:increas(?:e|ed|es|ing)|rose|risen|rises|rising|gain(?:ed|ing|s)?|grew|climb(?:ed|ing|s)?|went up|gone up|going up|trending up(?:ward)?|upward)\b/gi;
const DOWN_WORDS = /\b(?:decreas(?:e|ed|es|ing)|declin(?:e|ed|es|ing)|fell|fallen|falling|dropp(?:ed|ing)|drops?|lost|losing|loss|reduc(?:ed|tion)|went down|gone down|going down|trending down(?:ward)?|downward|dipped)\b/gi;
const OTHER_TREND = /\b(?:trend(?:s|ed|ing)?|chang(?:e|ed|es|ing)|improv(?:e|ed|es|ing|ement)|worsen(?:ed|ing|s)?|stable|steady|stabili[sz]ed|fluctuat\w*|progress(?:ed|ion|ing)?|over time)\b/gi;
/** The answer says a trend is not supported (§13.1 #6): no trend claim is made in that clause. */
const UNSUPPORTED_TREND =
  /\b(?:cannot|can ?not|can['’]t|could not|couldn['’]t|unable to|not possible|impossible|insufficient|not enough|too few|only (?:one|a single|1)|single (?:measurement|point|value|reading|data ?point|observation|result)|one (?:dated )?(?:\w+ )?(?:measurement|point|value|reading|data ?point|observation|result)|no (?:trend|prior|previous|earlier|other|second|comparison|comparative|serial|repeat)|not (?:be )?(?:determined|assessed|established|evaluated)|(?:measured|recorded|documented|checked|taken|obtained|done) only once|no (?:[\w-]+ )?(?:change|trend|difference|comparison)s? (?:can|could) be (?:determined|assessed|established|evaluated|calculated|judged|made|inferred))\b/i;
/** Words near a trend word that show it is about a drug or plan, not a measurement. */
const NOT_A_MEASUREMENT = /^(?:dose|doses|dosage|regimen|medication|medications|drug|drugs|treatment|therapy|art|plan|management|risk|frequency)$/;
/** What may precede a trend word when the subject is a pronoun or omitted. */
const PRONOUN_SUBJECT =
  /^(?:(?:yes|no|and|but|then|it|its|this|that|they|these|those|the|value|values|measurement|measurements|reading|readings|series|result|results|level|levels|has|have|had|is|was|were|been|also|both|further|subsequently|later|overall|steadily|gradually|slightly|significantly|since)[\s,]*)*$/i;
const PRONOUN_REACH = 300;
/** Purpose, advice and modality: "counselled for weight gain", "expected to increase", "whether it fell". */
const NOT_ASSERTED = /^(?:for|to|promote|promoting|encourage[sd]?|encouraging|support|supporting|goal|aim|target|should|must|need|needs|counsel\w*|advice|advised|help|helps|risk|monitor\w*|watch|assess\w*|check|if|whether|prevent\w*|avoid\w*|expected|likely|may|might|could|would|unclear|unknown)$/;
/** Words that may follow an -ing direction word without it becoming an adjective of another noun. */
const PREDICATE_NEXT = /^(?:from|to|since|over|at|on|in|by|and|or|but|with|while|then|again|until|between|during|throughout|across|each|every|further|now|still|overall|compared|relative|since|for|slowly|steadily|slightly|gradually|\p{N}+|\w+ly)$/u;
/** Words that may precede a noun-form direction word ("a loss", "weight loss"), or make it a verb ("to increase"). */
const NOUN_PREV = /^(?:to|not|did|does|do|will|a|an|the|no|any|some|this|that|its|their|his|her|of|and|or|with|in|on|by|significant|slight|steady|gradual|marked|further|continued|overall|progressive|consistent|modest|small|large|major|minor|sharp|rapid|mild|net|total|showed|shows|show|had|has|have|was|is|were|documented|recorded|noted)$/;
const NOUN_FORM = /^(?:loss|gain|drop|decline|increase|decrease|rise|reduction|change)$/i;
/** "continued to fall", "appears to be rising": an assertion despite the "to". */
const ONGOING = /^(?:appears?|appeared|seems?|seemed|continued|continues|continue|began|begins|started|starts|tends?|tended|went|came|was|were|is|are|has|have)$/;
/** Words that show an "unsupported" clause is about trends at all ("the patient could not attend" is not). */
const ABOUT_TREND = /\b(?:trend|change|compar\w*|determin\w*|assess\w*|measurements?|values?|points?|readings?|results?)\b/i;
const COMPOUND_CHAR = /^[\p{L}\p{N}'’-]$/u;

interface WordHit {
  start: number;
  end: number;
  word: string;
  direction: Direction;
}

/** True when the text contains any trend word (the trigger of the trend branch). */
export function hasTrendWord(text: string): boolean {
  return [FLAT_WORDS, UP_WORDS, DOWN_WORDS, OTHER_TREND].some((re) => new RegExp(re.source, 'i').test(text));
}

function wordHits(text: string): WordHit[] {
  const hits: WordHit[] = [];
  const add = (re: RegExp, direction: Direction) => {
    // One pattern's matches never overlap each other, so each is checked against the earlier
    // patterns' hits only (disjoint, sorted once): a scan of every hit per match was quadratic.
    const earlier = [...hits].sort((a, b) => a.start - b.start);
    // exec on the pattern itself, not matchAll (which copies the RegExp: once per clause and pattern).
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const hit = { start: m.index, end: m.index + m[0].length, word: m[0], direction };
      if (!overlapsSorted(earlier, hit)) hits.push(hit);
    }
    re.lastIndex = 0;
  };
  add(FLAT_WORDS, 'flat');
  add(UP_WORDS, 'up');
  add(DOWN_WORDS, 'down');
  add(OTHER_TREND, 'trend');
  return hits.sort((a, b) => a.start - b.start);
}

/** Whether `hit` overlaps one of the disjoint, start-ordered `spans`: only the last one starting before its end can. */
function overlapsSorted(spans: readonly WordHit[], hit: { start: number; end: number }): boolean {
  const lo = countWhile(spans.length, (i) => spans[i].start < hit.end);
  return lo > 0 && spans[lo - 1].end > hit.start;
}

function aboutSomethingElse(text: string, hit: WordHit): boolean {
  if (/^lost$/i.test(hit.word) && /^\s*to\s+follow/i.test(text.slice(hit.end))) return true;
  // "dose was increased", "increased the dose" — but not "increased since treatment started".
  const after = wordsAfter(text, hit.end, 2).filter((w, i) => !(i === 0 && /^(?:the|a|an|her|his|their)$/.test(w)));
  return [...wordsBefore(text, hit.start, 2), ...after.slice(0, 1)].some((w) => NOT_A_MEASUREMENT.test(w));
}

/** Every trend claim in the answer, bound to a selected series. */
export function trendClaims(answer: string, selected: readonly SelectedSeries[], universe: readonly NumericSeries[]): TrendClaim[] {
  const series = selected.map((s) => s.series);
  const mentions = findMentions(answer, series, universe);
  const insidePhrase = phraseCover(mentions);
  const claims: TrendClaim[] = [];
  for (const sentence of splitSentences(answer)) {
    for (const clause of splitClauses(sentence)) {
      if (UNSUPPORTED_TREND.test(clause.text)) continue;
      // The clause's own mentions, once per clause rather than once per trend word.
      let inClause: Mention[] | undefined;
      for (const hit of wordHits(clause.text)) {
        if (aboutSomethingElse(clause.text, hit)) continue;
        const at = { start: clause.start + hit.start, end: clause.start + hit.end };
        if (insidePhrase(at)) continue;
        if (incidental(answer, at, hit, mentions)) continue;
        if (/^no longer$/i.test(wordsBefore(clause.text, hit.start, 2).join(' '))) continue;
        const negated = hit.direction !== 'flat' && negatedBefore(clause.text, hit.start, 3);
        inClause ??= mentions.filter((m) => m.start >= clause.start && m.end <= clause.start + clause.text.length);
        for (const s of bind(answer, clause, sentence, at, hit, mentions, series, inClause)) {
          claims.push({ series: s, direction: hit.direction, negated, clause, sentence, word: hit.word, at: hit.start });
        }
      }
    }
  }
  return claims;
}

/**
 * Whether a span lies inside a full-name mention. Mentions come in start order, so the furthest
 * end among those starting at or before the span settles it (a scan of all per trend word was
 * quadratic).
 */
function phraseCover(mentions: readonly Mention[]): (at: { start: number; end: number }) => boolean {
  const phrases = mentions.filter((m) => m.kind === 'phrase');
  const reach: number[] = [];
  phrases.forEach((m, i) => reach.push(Math.max(m.end, i > 0 ? reach[i - 1] : -Infinity)));
  return (at) => {
    const lo = countWhile(phrases.length, (i) => phrases[i].start <= at.start);
    return lo > 0 && reach[lo - 1] >= at.end;
  };
}

/**
 * Advice or modality among the last three of `words` (the fourth-last is context only), but
 * "continued to fall" still asserts a fall.
 */
function notAsserted(words: readonly string[]): boolean {
  const first = Math.max(0, words.length - 3);
  return words.some((w, i) => i >= first && NOT_ASSERTED.test(w) && !(w === 'to' && i > 0 && ONGOING.test(words[i - 1])));
}

function isMentionAt(mentions: readonly Mention[], start: number, end: number): boolean {
  return mentions.some((m) => start < m.end && m.start < end);
}

/**
 * Direction words that do not assert a change of a charted series: advice or modality ("counselled
 * for weight gain"), an -ing adjective of another noun ("rising viral load"), or a noun compound of
 * another noun ("hearing loss", "a 4 kg loss").
 */
function incidental(answer: string, at: { start: number; end: number }, hit: WordHit, mentions: readonly Mention[]): boolean {
  if (notAsserted(wordsBefore(answer, at.start, 4))) return true;
  if (/ing$/i.test(hit.word) && !isMentionAt(mentions, at.start, at.end)) {
    const next = /^[ \t]+([\p{L}\p{N}'’-]+)/u.exec(answer.slice(at.end));
    if (next && !PREDICATE_NEXT.test(next[1].toLowerCase())) {
      const from = at.end + next[0].length - next[1].length;
      if (!isMentionAt(mentions, from, from + next[1].length)) return true;
    }
  }
  if (NOUN_FORM.test(hit.word)) {
    const prev = wordThenBlanks(answer, at.start);
    if (prev && !NOUN_PREV.test(prev.word.toLowerCase()) && !isMentionAt(mentions, prev.start, prev.start + prev.word.length)) return true;
  }
  return false;
}

/**
 * What `/([\p{L}\p{N}'’-]+)[ \t]+$/u` finds in `text.slice(0, end)` (the whole word before the
 * spaces/tabs that end it), read backwards from `end`: the `$`-anchored pattern was tried from every
 * position of the prefix, and per trend word.
 */
function wordThenBlanks(text: string, end: number): { word: string; start: number } | null {
  let i = end;
  while (i > 0 && (text[i - 1] === ' ' || text[i - 1] === '\t')) i -= 1;
  if (i === end) return null;
  const wordEnd = i;
  while (i > 0) {
    const c = codePointBefore(text, i);
    if (!COMPOUND_CHAR.test(c)) break;
    i -= c.length;
  }
  return i === wordEnd ? null : { word: text.slice(i, wordEnd), start: i };
}

function distance(m: Mention, at: { start: number; end: number }): number {
  if (m.end <= at.start) return at.start - m.end;
  if (m.start >= at.end) return m.start - at.end;
  return 0;
}

function bind(
  answer: string,
  clause: Piece,
  sentence: Piece,
  at: { start: number; end: number },
  hit: WordHit,
  mentions: readonly Mention[],
  series: readonly NumericSeries[],
  inClause: readonly Mention[],
): NumericSeries[] {
  if (inClause.length > 0) {
    // Nearest, then the later one: the first of a stable sort by that order, found in one pass.
    let nearest = inClause[0];
    for (const m of inClause) {
      const d = distance(m, at) - distance(nearest, at);
      if (d < 0 || (d === 0 && m.start > nearest.start)) nearest = m;
    }
    return unique(coordinatedGroup(nearest, mentions, answer).map((m) => m.series));
  }
  const carried = mentions.filter((m) => m.start >= sentence.start && m.end <= clause.start).pop();
  if (carried) return unique(coordinatedGroup(carried, mentions, answer).map((m) => m.series));
  if (!PRONOUN_SUBJECT.test(clause.text.slice(0, hit.start).trim())) return [];
  const earlier = mentions.filter((m) => m.end <= at.start && at.start - m.end <= PRONOUN_REACH).pop();
  if (earlier) return unique(coordinatedGroup(earlier, mentions, answer).map((m) => m.series));
  return series.length === 1 ? [series[0]] : [];
}

function unique<T>(xs: readonly T[]): T[] {
  return [...new Set(xs)];
}

/**
 * The answer says a trend of `series` cannot be determined: an "unsupported" clause that names the
 * series, or names no selected series but is about trends or measurements.
 */
export function acknowledgesNoTrend(answer: string, series: NumericSeries, selected: readonly SelectedSeries[], universe: readonly NumericSeries[]): boolean {
  const all = selected.map((s) => s.series);
  for (const sentence of splitSentences(answer)) {
    for (const clause of splitClauses(sentence)) {
      if (!UNSUPPORTED_TREND.test(clause.text)) continue;
      const named = findMentions(clause.text, all, universe).map((m) => m.series);
      if (named.includes(series) || (named.length === 0 && ABOUT_TREND.test(clause.text))) return true;
    }
  }
  return false;
}
