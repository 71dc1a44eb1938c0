/**
 * The sanitiser's `key = value` scan stays linear on hostile text (found by the input fuzz test): its
 * indentation used to be `\s*` under the `m` flag, so a long run of newlines without a key after it
 * was rescanned from every line start. A model answer of 80,000 newlines then took ~4 s to trace with
 * the event loop blocked; 400,000 would have taken minutes.
 */
import { sanitize, sanitizedJson } from '../../server/sanitize';

describe('sanitize on long runs of line breaks', () => {
  test.each([
    ['newlines then a colon', `${'\n'.repeat(400_000)}:`],
    ['space-newline lines then an equals sign', `${' \n'.repeat(200_000)}=`],
    ['a key line, then a long blank run without a separator', `Weight: 71 kg${'\n'.repeat(400_000)}!`],
    ['CRLF runs around colons', `${'\r\n'.repeat(200_000)}a:b`],
    ['U+2028 runs then a colon', `${'\u2028'.repeat(400_000)}:`],
  ])('%s: sanitised whole, text unchanged', (_name, text) => {
    // Quadratic scanning took tens of seconds here; the lint's regexp/no-super-linear-* rules keep it
    // linear (decision 26: tests bound work by counts and states, never by wall time).
    const out = sanitize({ answer_text: text }) as { answer_text: string };
    const json = sanitizedJson({ answer_text: text });
    expect(out.answer_text).toBe(text);
    expect(JSON.parse(json).answer_text).toBe(text);
  });

  test('secret key lines are still redacted, with or without indentation, and across a line break in the separator', () => {
    const text = 'api-key = sekrit\n\t  password: hunter2\nctx-size = 1024\n\n\nclient_secret\n=\nabc\n\u00a0token: t\nnote: keep me';
    expect(sanitize({ preset: text })).toEqual({
      preset: 'api-key = [redacted]\n\t  password: [redacted]\nctx-size = 1024\n\n\nclient_secret\n=\n[redacted]\n\u00a0token: [redacted]\nnote: keep me',
    });
  });
});
