/**
 * Hand scans for trailing runs of characters. A `/[…]+$/` regex retries its run from every position
 * when the run is not at the end (quadratic on a long run of slashes, dots or spaces in a model
 * reply); scanning back from the end is linear.
 */

/** Index where the run of trailing characters from `chars` starts (`s.length` when there is none). */
export function trailingRunStart(s: string, chars: string): number {
  let i = s.length;
  while (i > 0 && chars.includes(s[i - 1])) i--;
  return i;
}

/** `s` without its trailing characters from `chars`: `trimEndChars(url, '/')` for `url.replace(/\/+$/, '')`. */
export function trimEndChars(s: string, chars: string): string {
  return s.slice(0, trailingRunStart(s, chars));
}

/** What JavaScript's `\s` and `String.prototype.trim` count as white space (line terminators included). */
export function isJsSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** Line terminators: the characters a regex `.` does not match. */
export function isLineTerminator(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;
}

/** Index after the run of white space (`isJsSpace`) that starts at `i`. */
export function skipJsSpace(s: string, i: number): number {
  while (i < s.length && isJsSpace(s.charCodeAt(i))) i++;
  return i;
}
