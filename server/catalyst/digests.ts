/**
 * The digests Catalyst recomputes (clients.md §5): SHA-256 of RFC 8785 (JCS) canonical JSON for
 * structured evidence, SHA-256 of the UTF-8 text for prompts. JCS comes from a maintained library
 * (decision 15); hand-rolled key sorting would differ from RFC 8785 on number formatting and escapes.
 */
import { createHash } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';

/** Lower-case hex SHA-256 of a string's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** RFC 8785 serialisation (keys sorted by UTF-16 code units, no whitespace, ECMAScript numbers). */
export function canonicalJson(value: unknown): string {
  return canonicalize(value);
}

/** Lower-case hex SHA-256 of the RFC 8785 canonical JSON of `value`. */
export function canonicalDigest(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
