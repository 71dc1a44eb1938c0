/**
 * Finding the JSON object in a model reply or a user message. Small models wrap JSON in ```json
 * fences or a sentence of prose even when a schema was requested; §7.3 accepts raw JSON, a fenced
 * block, or the outermost braces. Never throws: a reply that is not JSON is a handled case (decision 11).
 */

export type JsonObject = Record<string, unknown>;

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseObject(text: string): JsonObject | null {
  try {
    const v: unknown = JSON.parse(text);
    return isJsonObject(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * Top-level `{…}` spans in order, found by brace depth outside JSON strings. A scan rather than
 * first-`{`-to-last-`}` so prose with a stray brace after the object still yields the object.
 */
function topLevelObjects(text: string): string[] {
  const spans: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"' && depth > 0) {
      inString = true;
    } else if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}' && depth > 0) {
      depth--;
      if (depth === 0) spans.push(text.slice(start, i + 1));
    }
  }
  return spans;
}

/** The first JSON object the text holds as raw JSON, a fenced block or the outermost braces; else null. */
export function extractJsonObject(text: string): JsonObject | null {
  if (typeof text !== 'string') return null;
  const whole = parseObject(text.trim());
  if (whole) return whole;
  // The language tag and blanks are stripped in code: in the pattern they would be rescanned from
  // every split point of an unclosed fence (quadratic on a hostile reply).
  for (const m of text.matchAll(/```([\s\S]*?)```/g)) {
    const fenced = parseObject(m[1].replace(/^[a-zA-Z]*/, '').trim());
    if (fenced) return fenced;
  }
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first >= 0 && last > first) {
    const outer = parseObject(text.slice(first, last + 1));
    if (outer) return outer;
  }
  for (const span of topLevelObjects(text)) {
    const obj = parseObject(span);
    if (obj) return obj;
  }
  return null;
}
