/**
 * The `model` extractor: each chunk of a recommendation-bearing section goes to the router's model with a
 * JSON schema (`response_format: json_schema`), which returns `{units: [{verbatim, criteria, directive}]}`.
 * Every returned verbatim must be an exact substring of its chunk under the whitespace rule (text.ts); the
 * stored verbatim is then the chunk's own bytes. Anything else — a paraphrase, a reply that is not the
 * schema's JSON, a duplicate — is rejected and counted, never stored. Safety-critical is decided by the
 * same deterministic section rule as the rules extractor, not by the model.
 */
import type { RouterClient } from '../../llm';
import { isSafetyCritical } from './safety';
import { findQuote } from './text';
import type { ExtractedUnit, Extraction, IngestSection } from './types';

export const EXTRACTION_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['units'],
  properties: {
    units: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['verbatim', 'criteria', 'directive'],
        properties: { verbatim: { type: 'string' }, criteria: { type: 'string' }, directive: { type: 'string' } },
      },
    },
  },
} as const;

export const EXTRACTION_INSTRUCTIONS =
  'You extract clinical recommendation units from drug label text. Return only JSON matching the schema: ' +
  '{"units": [{"verbatim", "criteria", "directive"}]}. "verbatim" is one complete sentence or list item copied ' +
  'EXACTLY from the text (no paraphrase, no omission); "criteria" says who or when; "directive" says what to do. ' +
  'Skip descriptive sentences that recommend nothing. Never quote table rows.';

export interface ModelExtractorDeps {
  router: RouterClient;
  model: string;
  signal?: AbortSignal;
  /** Called after each chunk (progress). */
  onChunk?: () => void;
}

function parseUnits(content: string): Array<{ verbatim: string; criteria: string; directive: string }> | null {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return null;
  }
  const units = (value as { units?: unknown })?.units;
  if (!Array.isArray(units)) return null;
  const ok = units.every((u) => u && typeof u === 'object' && ['verbatim', 'criteria', 'directive'].every((k) => typeof (u as Record<string, unknown>)[k] === 'string'));
  return ok ? (units as Array<{ verbatim: string; criteria: string; directive: string }>) : null;
}

export async function modelExtract(sections: IngestSection[], deps: ModelExtractorDeps): Promise<Extraction & { tokensIn: number; tokensOut: number }> {
  const units: ExtractedUnit[] = [];
  const rejected: Record<string, number> = {};
  const reject = (why: string, n = 1) => void (rejected[why] = (rejected[why] ?? 0) + n);
  const seen = new Set<string>();
  let tokensIn = 0;
  let tokensOut = 0;
  for (const section of sections) {
    if (section.kind === 'other') continue;
    for (const chunk of section.chunks) {
      const reply = await deps.router.chat({
        model: deps.model,
        temperature: 0,
        messages: [
          { role: 'system', content: EXTRACTION_INSTRUCTIONS },
          { role: 'user', content: `Section: ${section.titles.join(' › ')}\n\nText:\n${chunk.text}` },
        ],
        response_format: { type: 'json_schema', json_schema: { name: 'mku_units', strict: true, schema: EXTRACTION_SCHEMA } },
      }, { signal: deps.signal });
      tokensIn += reply.usage.prompt_tokens;
      tokensOut += reply.usage.completion_tokens;
      deps.onChunk?.();
      const proposed = parseUnits(reply.content);
      if (!proposed) {
        reject('reply not the schema JSON');
        continue;
      }
      for (const u of proposed) {
        const hit = findQuote(chunk.text, u.verbatim);
        if (!hit) {
          reject('verbatim not in chunk');
          continue;
        }
        const key = `${section.docId}\u0000${hit.bytes}`;
        if (seen.has(key)) {
          reject('duplicate quote');
          continue;
        }
        seen.add(key);
        units.push({
          chunkId: chunk.chunkId, verbatim: hit.bytes, criteria: u.criteria.trim() || section.titles[section.titles.length - 1] || '',
          directive: u.directive.trim(), safetyCritical: isSafetyCritical(section.kind, hit.bytes), mkuClass: section.kind,
        });
      }
    }
  }
  return { units, rejected, tokensIn, tokensOut };
}
