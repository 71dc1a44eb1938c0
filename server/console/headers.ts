/**
 * What the browser may do on a console page: scripts and styles from the hub alone (no inline script, no
 * CDN), API calls to the hub alone, no plugin, no framing of the console by another site. Chart and model
 * text is written with textContent; this policy is the second wall should a future change forget it.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  // The knowledge tab shows the hub's HTML rendering in a sandboxed srcdoc frame (no scripts, opaque origin).
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on every console file: the policy above, no sniffing, no referrer, always revalidated. */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};
