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
import { MAX_BODY_DEPTH, tooDeepError } from './schemas';

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
  if (e?.type === 'entity.too.large') return sendError(res, new HubError('request_too_large', 413, 'The request body is larger than HUB_MAX_BODY_BYTES.'));
  if (e?.type === PARSE_FAILED) return sendError(res, new HubError('invalid_request_error', 400, 'The request body is not valid JSON.'));
  if (e?.status && e.status >= 400 && e.status < 500) return sendError(res, new HubError('invalid_request_error', e.status, 'The request body could not be read.'));
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

/**
 * The body middleware pair for `app.use`: any content type is read as JSON (strict), up to `limit`
 * bytes; bodies above `sliceAbove` bytes are read in slices.
 */
export function jsonBody(opts: { limit: number; sliceAbove?: number }): [RequestHandler, express.ErrorRequestHandler] {
  const parser = express.json({ limit: opts.limit, type: () => true, strict: true, verify: verifyBody(opts.sliceAbove ?? SLICED_BODY_BYTES) });
  return [parser, bodyErrors];
}
