/**
 * Facts-first verdicts (§7.5 Target): the checker only lists facts with a status; the hub derives
 * `support` from them, so a model can never hand us a verdict it did not justify fact by fact.
 */
import type { CheckedFact, FactStatus, GroundingCheck, Support } from './types';

/** null ⇒ unchecked; any differs ⇒ contradicted; all found (non-empty) ⇒ supported; else not_addressed. */
export function deriveSupport(facts: CheckedFact[] | null): Support {
  if (facts === null) return 'unchecked';
  if (facts.some((f) => f.status === 'differs')) return 'contradicted';
  if (facts.length > 0 && facts.every((f) => f.status === 'found')) return 'supported';
  // An empty list means the checker found no patient fact to confirm: nothing was supported.
  return 'not_addressed';
}

/** Legacy `status` for older clients (§7.5 recommended mapping, decision 16). */
export function statusOfSupport(s: Support): GroundingCheck['status'] {
  if (s === 'supported') return 'verified';
  if (s === 'contradicted') return 'unsupported';
  return 'unchecked';
}

const FACT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['fact', 'status', 'source_says'],
  properties: {
    fact: { type: 'string' },
    status: { type: 'string', enum: ['found', 'differs', 'not_found'] },
    source_says: { type: 'string' },
  },
};

export const GROUNDING_RESPONSE_FORMAT = {
  type: 'json_schema',
  json_schema: {
    name: 'grounding_facts',
    strict: true,
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['pairs'],
      properties: {
        pairs: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['pair', 'facts'],
            properties: { pair: { type: 'integer' }, facts: { type: 'array', items: FACT_SCHEMA } },
          },
        },
      },
    },
  },
} as const;

function parseStatus(value: unknown): FactStatus | null {
  if (typeof value !== 'string') return null;
  // Models drift to "Not Found" / "not-found" even under a schema; the meaning is unambiguous.
  const s = value.trim().toLowerCase().replace(/[\s-]+/g, '_');
  return s === 'found' || s === 'differs' || s === 'not_found' ? s : null;
}

function parseFacts(value: unknown): CheckedFact[] | null {
  if (!Array.isArray(value)) return null;
  const out: CheckedFact[] = [];
  for (const item of value) {
    if (!item || typeof item !== 'object') return null;
    const { fact, status, source_says: says } = item as Record<string, unknown>;
    const parsed = parseStatus(status);
    if (typeof fact !== 'string' || parsed === null) return null;
    const sourceSays = typeof says === 'string' ? says : typeof says === 'number' ? String(says) : '';
    out.push({ fact, status: parsed, source_says: sourceSays });
  }
  return out;
}

/** JSON texts worth trying: a fenced block's body, then the outermost `{…}` of the whole reply. */
function candidates(content: string): string[] {
  const out: string[] = [];
  // No `\s*` before the lazy body: with it, whitespace after an unclosed fence is rescanned from
  // every split point (quadratic on a hostile reply); the tag and the blanks are trimmed in code.
  const fenced = /```([\s\S]*?)```/.exec(content);
  if (fenced) out.push(fenced[1].replace(/^json/i, '').trim());
  const first = content.indexOf('{');
  const last = content.lastIndexOf('}');
  if (first >= 0 && last > first) out.push(content.slice(first, last + 1));
  return out;
}

function parseObject(content: string): Record<string, unknown> | null {
  for (const text of candidates(content)) {
    try {
      const value: unknown = JSON.parse(text);
      if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // try the next candidate
    }
  }
  return null;
}

/**
 * Parses a checker reply into one fact list per pair of the batch (`count` pairs). Entries map by
 * their 1-based `pair` number when valid, else by position. A missing, malformed or ambiguous
 * (two entries for one pair) entry yields null for that pair only; a reply that is not JSON or has
 * no `pairs` array yields null for the whole batch.
 */
export function parseFactReply(content: string, count: number): Array<CheckedFact[] | null> | null {
  const obj = parseObject(content);
  if (!obj || !Array.isArray(obj.pairs)) return null;
  const slots: Array<CheckedFact[] | null | undefined> = new Array(count).fill(undefined);
  const ambiguous = new Set<number>();
  obj.pairs.forEach((entry: unknown, position) => {
    const rec = entry && typeof entry === 'object' ? (entry as Record<string, unknown>) : null;
    const n = rec?.pair;
    const slot = typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= count ? n - 1 : position;
    if (slot >= count) return;
    // Two entries claiming one pair: we cannot tell which judged it, so neither counts.
    if (slots[slot] !== undefined) ambiguous.add(slot);
    slots[slot] = rec ? parseFacts(rec.facts) : null;
  });
  return slots.map((facts, i) => (ambiguous.has(i) ? null : (facts ?? null)));
}
