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
