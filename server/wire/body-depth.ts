/**
 * Nesting depth of a JSON body, read from its raw bytes before it is parsed. JSON.parse accepts any
 * depth but is slow on deep input (a 100,000-level body held the event loop for 50–80 ms), and the hub
 * refuses anything deeper than MAX_BODY_DEPTH anyway (below): a body that deep is refused here,
 * naming the same field, without being parsed. One pass over the bytes; every JSON structural
 * character is ASCII, so UTF-8 multi-byte sequences never look like one.
 */
import { HubError } from '../errors';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * The top-level field whose value first nests deeper than `maxDepth` (the body itself is level 1),
 * '' when the body is an array or the field name cannot be read, null when the bytes stay within the
 * bound. Malformed JSON is left to the parser: this only counts brackets outside strings.
 */
export function tooDeepFieldInBytes(buf: Uint8Array, maxDepth: number): string | null {
  let depth = 0;
  let inString = false;
  let stringStart = -1;
  /** Inside the top-level object, whether the next string is a member name. */
  let expectKey = false;
  let topIsObject = false;
  let key = '';
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        inString = false;
        if (depth === 1 && topIsObject && expectKey) key = memberName(buf, stringStart, i);
      }
      continue;
    }
    if (c === QUOTE) {
      inString = true;
      stringStart = i;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth === 0) {
        topIsObject = c === OPEN_OBJECT;
        expectKey = topIsObject;
      }
      depth++;
      if (depth > maxDepth) return topIsObject ? key : '';
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    } else if (depth === 1 && topIsObject) {
      if (c === COLON) expectKey = false;
      else if (c === COMMA) expectKey = true;
    }
  }
  return null;
}

/** The member name between the quotes at `open` and `close`, decoded as JSON; '' when it is not valid. */
function memberName(buf: Uint8Array, open: number, close: number): string {
  try {
    const name: unknown = JSON.parse(Buffer.from(buf.buffer, buf.byteOffset + open, close - open + 1).toString('utf8'));
    return typeof name === 'string' ? name : '';
  } catch {
    return '';
  }
}

/**
 * Deepest nesting of arrays and objects a chat body may have (the body itself is level 1; OpenAI
 * content parts sit at level 5, a caller's JSON schema a few levels further). JSON.parse accepts any
 * depth, but the hub's own recursive work (JSON.stringify of message content, prompts, router bodies,
 * traces) overflows the stack at a few thousand levels: a deeper body must be refused up front, as
 * bad input, rather than fail later as an internal error or a lost turn (decision 11).
 */
export const MAX_BODY_DEPTH = 64;

/**
 * The first top-level field whose value nests deeper than `maxDepth` levels counted from the body,
 * '' when the body itself is too deep without one, null when within bounds. Iterative on purpose: a
 * recursive walk would overflow on exactly the bodies it is meant to refuse.
 */
export function tooDeepField(body: unknown, maxDepth: number = MAX_BODY_DEPTH): string | null {
  if (body === null || typeof body !== 'object') return null;
  const fields: Array<[string, unknown]> = Array.isArray(body) ? body.map((v) => ['', v]) : Object.entries(body);
  for (const [field, value] of fields) {
    const stack: Array<[unknown, number]> = [[value, 2]];
    while (stack.length > 0) {
      const [v, depth] = stack.pop()!;
      if (v === null || typeof v !== 'object') continue;
      if (depth > maxDepth) return field;
      for (const child of Array.isArray(v) ? v : Object.values(v)) {
        if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
      }
    }
  }
  return null;
}

/** 400 for a body nesting deeper than MAX_BODY_DEPTH, naming the top-level field ('' = the body itself). */
export function tooDeepError(field: string): HubError {
  return new HubError('invalid_request_error', `Invalid request: '${field || 'body'}' nests arrays and objects more than ${MAX_BODY_DEPTH} levels deep.`, { param: field || null });
}
