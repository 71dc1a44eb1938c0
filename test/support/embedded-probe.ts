/**
 * Runs the embedded engine's router-client interface in a real Node process (jest's module sandbox cannot
 * load node-llama-cpp) and prints what it saw as one JSON line: `node -r scripts/register-ts.js
 * test/support/embedded-probe.ts <MODELS_DIR> <scenario>`. The test asserts on the output.
 */
import { createEmbeddedEngine } from '../../server/llm/embedded';
import { FIT_PROBE_TEXT } from '../../server/llm/fit-bound';
import { lcg, randomChart } from './random-chart';

const MODEL = 'gemma-4-12b';

const VERDICT_SCHEMA = {
  type: 'object',
  properties: { verdict: { enum: ['found', 'differs', 'not_found'] }, flagged: { type: 'boolean' }, index: { enum: [1, 2, 3] } },
  required: ['verdict', 'flagged', 'index'],
  additionalProperties: false,
};

async function main(): Promise<void> {
  const [dir, scenario] = process.argv.slice(2);
  const engine = createEmbeddedEngine({ modelsDir: dir, threads: 1, maxLoadedModels: 1, maxConcurrency: 1, maxQueue: 8, prefixReuse: true });
  const client = engine.client;
  const out: Record<string, unknown> = {};
  try {
    if (scenario === 'grammar') {
      const replies = [];
      for (let i = 0; i < 6; i++) {
        const r = await client.chat({
          model: MODEL, temperature: 1, seed: i, max_tokens: 300,
          messages: [{ role: 'user', content: `Judge claim ${i}: weight 71 kg.` }],
          response_format: { type: 'json_schema', json_schema: { name: 'verdict', schema: VERDICT_SCHEMA } },
        });
        replies.push({ content: r.content, finishReason: r.finishReason });
      }
      out.replies = replies;
    }
    if (scenario === 'pieces') {
      const rand = lcg(99);
      const texts = [FIT_PROBE_TEXT, 'Hello world, this is a test.', ' leading space', '', ...Array.from({ length: 20 }, () => randomChart(rand, 12))];
      out.results = await Promise.all(texts.map(async (content) => {
        const r = await client.tokenize({ model: MODEL, content, add_special: false, parse_special: false, with_pieces: true });
        const joined = Buffer.concat((r.pieces ?? []).map((p) => Buffer.from(p)));
        return { count: r.count, pieces: r.pieces?.length ?? null, exact: joined.equals(Buffer.from(content, 'utf8')), empty: (r.pieces ?? []).filter((p) => p.length === 0).length };
      }));
      out.hello = (await client.tokenize({ model: MODEL, content: 'Hello world, this is a test.', add_special: false })).tokens;
    }
  } finally {
    await client.close();
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
