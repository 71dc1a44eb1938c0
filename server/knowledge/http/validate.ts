/**
 * Request validation for the knowledge endpoints (decisions 11, 18): ajv, compiled once from the published
 * schemas. A schema-invalid body is 422 with Locus's FastAPI-shaped `detail` list of `{loc, msg, type, input?,
 * ctx?}` *and* the decision-1 `error` object, so both kinds of client read it.
 */
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { compileConstant, constantSchemaAjv } from '../../json-schemas';
import type { Response } from 'express';
import { tooDeepField } from '../../wire';
import { KNOWLEDGE_SCHEMAS } from './schemas';

export interface LocusErrorItem {
  loc: Array<string | number>;
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export class KnowledgeValidationError extends Error {
  constructor(readonly items: LocusErrorItem[]) {
    super(items.length ? `Invalid request: ${items[0].loc.join('.')}: ${items[0].msg}` : 'Invalid request.');
    this.name = 'KnowledgeValidationError';
  }
}

const ajv = constantSchemaAjv({ allErrors: true, strict: false, strictNumbers: true });

export function compileKnowledgeSchema<T>(name: keyof typeof KNOWLEDGE_SCHEMAS): ValidateFunction<T> {
  return (ajv.getSchema<T>(KNOWLEDGE_SCHEMAS[name].$id) as ValidateFunction<T> | undefined) ?? compileConstant<T>(ajv, KNOWLEDGE_SCHEMAS[name]);
}

const TYPE_NAMES: Record<string, string> = { string: 'string_type', integer: 'int_type', number: 'float_type', boolean: 'bool_type', array: 'list_type', object: 'dict_type' };

function segments(pointer: string): Array<string | number> {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function valueAt(body: unknown, path: Array<string | number>): unknown {
  let v: unknown = body;
  for (const p of path) v = v !== null && typeof v === 'object' ? (v as Record<string | number, unknown>)[p] : undefined;
  return v;
}

/** One ajv error as FastAPI would word it (`loc` starts with `body`). */
export function toLocusItem(e: ErrorObject, body: unknown): LocusErrorItem {
  const at = segments(e.instancePath);
  const input = valueAt(body, at);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { loc: ['body', ...at, String(p.missingProperty)], msg: 'Field required', type: 'missing' };
    case 'type': {
      const t = String(Array.isArray(p.type) ? p.type.find((x) => x !== 'null') : p.type).split(',')[0];
      return { loc: ['body', ...at], msg: `Input should be a valid ${t}`, type: TYPE_NAMES[t] ?? 'type_error', input };
    }
    case 'minimum':
      return { loc: ['body', ...at], msg: `Input should be greater than or equal to ${String(p.limit)}`, type: 'greater_than_equal', input, ctx: { ge: p.limit } };
    case 'maximum':
      return { loc: ['body', ...at], msg: `Input should be less than or equal to ${String(p.limit)}`, type: 'less_than_equal', input, ctx: { le: p.limit } };
    case 'minLength':
      return { loc: ['body', ...at], msg: `String should have at least ${String(p.limit)} character${p.limit === 1 ? '' : 's'}`, type: 'string_too_short', input, ctx: { min_length: p.limit } };
    case 'maxLength':
      return { loc: ['body', ...at], msg: `String should have at most ${String(p.limit)} characters`, type: 'string_too_long', ctx: { max_length: p.limit } };
    case 'maxItems':
      return { loc: ['body', ...at], msg: `List should have at most ${String(p.limit)} items`, type: 'too_long', ctx: { max_length: p.limit } };
    case 'enum':
      return { loc: ['body', ...at], msg: `Input should be one of ${(p.allowedValues as unknown[]).filter((x) => x !== null).map((x) => `'${String(x)}'`).join(', ')}`, type: 'enum', input };
    default:
      return { loc: ['body', ...at], msg: e.message ?? 'Invalid value', type: e.keyword };
  }
}

/** Validates a parsed body against a request schema, or throws KnowledgeValidationError. */
export function validateRequest<T>(validate: ValidateFunction<T>, body: unknown): T {
  const deep = tooDeepField(body);
  if (deep !== null) throw new KnowledgeValidationError([{ loc: ['body', ...(deep ? [deep] : [])], msg: 'Input nests arrays and objects too deep', type: 'too_deep' }]);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new KnowledgeValidationError([{ loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type', input: body }]);
  if (validate(body)) return body;
  // ajv reports a `type` error for each branch of a nullable union; one item per location is enough.
  const seen = new Set<string>();
  const items: LocusErrorItem[] = [];
  for (const e of validate.errors ?? []) {
    const item = toLocusItem(e, body);
    const key = JSON.stringify(item.loc);
    if (seen.has(key)) continue;
    seen.add(key);
    items.push(item);
  }
  throw new KnowledgeValidationError(items);
}

export function sendValidationError(res: Response, err: KnowledgeValidationError): void {
  res.locals.errorCode = 'invalid_request_error';
  const first = err.items[0];
  const param = first ? first.loc.filter((x) => x !== 'body').join('.') || null : null;
  res.status(422).json({ error: { message: err.message, type: 'invalid_request_error', param, code: 'invalid_request_error' }, detail: err.items });
}
