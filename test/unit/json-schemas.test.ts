/**
 * The hub's Ajv instances skip the meta-schema check at run time (server/json-schemas.ts: it costs each
 * instance ~2.4 MB of resident memory). This suite does that check instead, for every constant schema the
 * hub's modules compile: each must be a valid schema of its draft, and compile with the check switched on.
 */
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { compiledConstantSchemas, constantSchemaAjv } from '../../server/json-schemas';
// Every module that compiles constant schemas at load (their import is the point).
import '../../server/catalyst/request-schemas';
import '../../server/profiles/compiler';
import '../../server/checks/drug-safety/package-schema';
import '../../server/chat/request-schema';
import '../../server/knowledge/http/auth';
import '../../server/knowledge/loader/schemas';
import '../../server/llm/embedded/manifest';
import '../support/envelope-validators';
import { compileKnowledgeSchema } from '../../server/knowledge/http/validate';
import { KNOWLEDGE_SCHEMAS } from '../../server/knowledge/http/schemas';
import { backendMapValidator } from '../../server/config';

for (const name of Object.keys(KNOWLEDGE_SCHEMAS) as Array<keyof typeof KNOWLEDGE_SCHEMAS>) compileKnowledgeSchema(name);
// Compiled on first use (a hub without LLM_BACKENDS never builds it).
backendMapValidator();

const all = compiledConstantSchemas();

test('every module that compiles constant schemas recorded them', () => {
  // catalyst 2, profiles 1, drug safety 4, chat request 1, knowledge key file 1, loader kinds, manifest 1, knowledge wire.
  expect(all.length).toBeGreaterThanOrEqual(10 + Object.keys(KNOWLEDGE_SCHEMAS).length);
  expect(all.some((s) => s.draft === 'draft-07')).toBe(true);
});

test.each(all.map((s, i) => [i, s.draft, (s.schema as { $id?: string; title?: string }).$id ?? (s.schema as { title?: string }).title ?? '(no $id)', s] as const))(
  'schema %i (%s, %s) is valid against its meta-schema',
  (_i, draft, _name, { schema }) => {
    const checker = draft === '2020-12' ? new Ajv2020({ strict: false }) : new Ajv({ strict: false });
    addFormats(checker);
    const valid = checker.validateSchema(schema);
    expect(checker.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  },
);

test('an instance for constants really skips the check (a schema only the meta-schema refuses compiles), which is why this suite exists', () => {
  const invalid = { type: 'object', minProperties: -1 };
  expect(() => new Ajv2020({ strict: false }).compile(invalid)).toThrow(/schema is invalid/);
  expect(() => constantSchemaAjv({ strict: false }).compile(invalid)).not.toThrow();
});
