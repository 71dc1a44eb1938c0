/**
 * JSON request bodies (decisions 1 and 11). body-parser reads every body: the size limit (413), content
 * encodings, the charset check (415), aborted uploads. A small body is then decoded, checked for depth
 * and parsed at once, as body-parser does. A large one (a chart of thousands of records, a megabyte of
 * text) cost 10–30 ms in that one piece, holding every other request for it; so its bytes are handed on
 * unparsed and read in slices — depth first, then the decode a run of bytes at a time, then one
 * JSON.parse — on fresh turns of the event loop. Both paths give the same body or the same error.
 */
import { StringDecoder } from 'node:string_decoder';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { HubError } from '../errors';
import { LoopSlice, yieldToLoop } from '../event-loop';
import { tooDeepFieldInBytes } from './body-depth';
import { sendError } from './errors';
import { MAX_BODY_DEPTH, tooDeepError } from './body-depth';

/** Bodies larger than this (bytes) are read in slices. */
export const SLICED_BODY_BYTES = 64 * 1024;
/** Bytes decoded per run of a sliced read. */
const DECODE_RUN_BYTES = 64 * 1024;

const TOO_DEEP = 'entity.too.deep';
const PARSE_FAILED = 'entity.parse.failed';
const SLICED = 'entity.sliced';

interface BodyError extends Error {
  type?: string;
  status?: number;
  field?: string;
}

function bodyError(message: string, type: string, extra: Partial<BodyError> = {}): BodyError {
  return Object.assign(new Error(message), { status: 400, type, ...extra });
}

/**
 * A large body handed on by `verify` (the only hook body-parser gives between reading and parsing: what
 * it throws reaches the error handlers with the bytes attached) to be read in slices.
 */
class SlicedBody extends Error {
  readonly type = SLICED;
  constructor(readonly bytes: Buffer) {
    super('body read in slices');
  }
}

/** A body nested deeper than the hub accepts is refused from its bytes, before the (slow) parse. */
function refuseDeepBody(buf: Uint8Array): void {
  const field = tooDeepFieldInBytes(buf, MAX_BODY_DEPTH);
  if (field !== null) throw bodyError('body nests too deep', TOO_DEEP, { field });
}

function verifyBody(sliceAbove: number) {
  return (_req: unknown, _res: unknown, buf: Buffer, encoding: string | null): void => {
    // Only UTF-8 (the default charset) is sliced; the rare other `utf-*` charsets are decoded by body-parser.
    if (buf.length > sliceAbove && encoding === 'utf-8') throw new SlicedBody(buf);
    refuseDeepBody(buf);
  };
}

/**
 * `iconv.decode(bytes, 'utf-8')` as body-parser calls it (Node's StringDecoder, a leading byte-order mark
 * dropped), a run of bytes at a time: the decoder carries a sequence cut by a run's end into the next run.
 */
export async function decodeUtf8InSlices(bytes: Buffer, slice: LoopSlice, runBytes = DECODE_RUN_BYTES): Promise<string> {
  const decoder = new StringDecoder('utf8');
  let text = '';
  for (let from = 0; from < bytes.length; from += runBytes) {
    text += decoder.write(bytes.subarray(from, from + runBytes));
    if (from + runBytes < bytes.length) await slice.maybeYield();
  }
  text += decoder.end();
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** JSON whitespace (RFC 8259): what body-parser's strict mode skips before the first character. */
function firstNonWhitespace(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') return c;
  }
  return undefined;
}

/** body-parser's strict JSON parse: empty is `{}`, anything but an object or array at the top fails. */
export function parseStrictJson(text: string): unknown {
  if (text.length === 0) return {};
  const first = text[0] === '{' || text[0] === '[' ? text[0] : firstNonWhitespace(text);
  if (first !== '{' && first !== '[') throw bodyError('Unexpected token in JSON', PARSE_FAILED);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw bodyError(err instanceof Error ? err.message : 'invalid JSON', PARSE_FAILED);
  }
}

/**
 * A large body, read on fresh loop turns: depth (one pass over the bytes, about a millisecond a
 * megabyte), the decode a run of bytes at a time, then the parse.
 */
export async function readSlicedBody(bytes: Buffer, runBytes = DECODE_RUN_BYTES): Promise<unknown> {
  await yieldToLoop();
  refuseDeepBody(bytes);
  const slice = new LoopSlice();
  const text = await decodeUtf8InSlices(bytes, slice, runBytes);
  await slice.yield();
  return parseStrictJson(text);
}

/** Body-parser failures → decision-1 errors (413 over the limit, 400 for malformed JSON or too deep). */
function sendBodyError(err: unknown, res: Response, next: NextFunction): void {
  const e = err as BodyError;
  if (e?.type === TOO_DEEP) return sendError(res, tooDeepError(e.field ?? ''));
  if (e?.type === 'entity.too.large') return sendError(res, new HubError('request_too_large', 'The request body is larger than HUB_MAX_BODY_BYTES.'));
  if (e?.type === PARSE_FAILED) return sendError(res, new HubError('invalid_request_error', 'The request body is not valid JSON.'));
  if (e?.status && e.status >= 400 && e.status < 500) return sendError(res, new HubError('invalid_request_error', 'The request body could not be read.', { status: e.status }));
  next(err);
}

function bodyErrors(err: unknown, req: Request, res: Response, next: NextFunction): void {
  if (!(err instanceof SlicedBody)) return sendBodyError(err, res, next);
  readSlicedBody(err.bytes).then(
    (body) => {
      // A client gone while its body was read has nobody to answer.
      if (req.socket.destroyed) return;
      req.body = body;
      next();
    },
    (failure: unknown) => sendBodyError(failure, res, next),
  );
}

/** `type/subtype; charset=utf-8` and nothing more: content-type's parse names UTF-8, as with no charset. */
const UTF8_ONLY_PARAMETER = /^[\w.+-]+\/[\w.+-]+[ \t]*;[ \t]*charset=utf-8$/i;

/** Is this a body the plain read below takes: unencoded, no charset named (UTF-8), a declared length within `limit`? */
function isPlainBody(req: Request, limit: number): boolean {
  const h = req.headers;
  if (h['transfer-encoding'] !== undefined) return false;
  const encoding = h['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const type = h['content-type'];
  if (type !== undefined && /charset/i.test(type) && !UTF8_ONLY_PARAMETER.test(type)) return false;
  const length = h['content-length'];
  if (length === undefined || !/^\d{1,15}$/.test(length)) return false;
  return Number(length) <= limit;
}

/**
 * The common body (a client's JSON, unencoded, UTF-8, with its length declared and within the slicing
 * threshold and the limit) read without body-parser's machinery: its content-type parse, raw-body's
 * listeners and iconv-lite's decoder cost a leg more than the hub's own parse. The same checks in the same
 * order — depth from the bytes, the UTF-8 decode with a leading byte-order mark dropped, the strict parse —
 * and the same errors; any other body goes on to body-parser (a test sends both the same random bodies).
 */
function plainJsonBody(limit: number): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!isPlainBody(req, limit) || req.complete) return next();
    const chunks: Buffer[] = [];
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      sendBodyError(err, res, next);
    };
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('error', () => fail(bodyError('request aborted', 'request.aborted')));
    req.once('close', () => {
      if (!req.complete) fail(bodyError('request aborted', 'request.aborted'));
    });
    req.once('end', () => {
      if (settled) return;
      settled = true;
      try {
        const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        refuseDeepBody(bytes);
        const text = bytes.toString('utf8');
        req.body = parseStrictJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
      } catch (err) {
        sendBodyError(err, res, next);
        return;
      }
      next();
    });
  };
}

/**
 * The body middleware for `app.use`: any content type is read as JSON (strict), up to `limit` bytes;
 * bodies above `sliceAbove` bytes are read in slices. A plain body within the threshold takes the plain
 * read (`plainRead: false` sends every body through body-parser: the reference the tests compare with).
 */
export function jsonBody(opts: { limit: number; sliceAbove?: number; plainRead?: boolean }): Array<RequestHandler | express.ErrorRequestHandler> {
  const sliceAbove = opts.sliceAbove ?? SLICED_BODY_BYTES;
  const parser = express.json({ limit: opts.limit, type: () => true, strict: true, verify: verifyBody(sliceAbove) });
  const plain = opts.plainRead === false ? [] : [plainJsonBody(Math.min(opts.limit, sliceAbove))];
  return [...plain, parser, bodyErrors];
}
