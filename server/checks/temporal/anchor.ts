/**
 * The temporal anchor ("today", §4.7 and §6.1). Resolved once per request by the engine and shared by
 * temporal facts and drug safety; pure here, so the clock and the zone are arguments.
 */
import { isCalendarDate } from './parse';
import type { ChartEvent } from './types';

export type AnchorMode = 'wall_clock' | 'explicit' | 'latest_record';

export interface ResolvedAnchor {
  /** `wall_clock`, `explicit` (a configured ISO date) or `latest_record`. */
  anchorMode: AnchorMode;
  referenceDate: string | null;
}

export interface AnchorInputs {
  now: Date;
  /** IANA zone (`HUB_TIMEZONE`); null means the process zone. */
  timezone: string | null;
  events: readonly ChartEvent[];
  chartText: string;
}

const DATE_IN_PARENS = /\((\d{4}-\d{2}-\d{2})\)/g;

function blankToNull(v: string | null): string | null {
  return v !== null && v.trim() !== '' ? v.trim() : null;
}

/**
 * Precedence of §4.7: `policies.anchor` → env `HUB_ANCHOR` → `wall_clock` for product profiles →
 * null, which means `latest_record`.
 */
export function anchorSettingFor(profileAnchor: string | null, envAnchor: string | null, isProduct: boolean): string | null {
  return blankToNull(profileAnchor) ?? blankToNull(envAnchor) ?? (isProduct ? 'wall_clock' : null);
}

function formatDay(now: Date, timeZone: string | undefined): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** The calendar day of `now` in the zone: 2026-07-11T03:00Z is still 2026-07-10 in Honolulu. */
export function wallClockDate(now: Date, timezone: string | null): string {
  try {
    return formatDay(now, timezone ?? undefined);
  } catch {
    // Config validates HUB_TIMEZONE at startup; an unknown zone here falls back to the process zone.
    return formatDay(now, undefined);
  }
}

function maxDate(dates: Iterable<string>): string | null {
  let best: string | null = null;
  for (const d of dates) if (best === null || d > best) best = d;
  return best;
}

/**
 * Newest clinical date: administrative events (Program enrolment, `[administrative]`/`[unknown]`
 * markers) never move "today". Falls back to any `(YYYY-MM-DD)` in the text so a chart whose dates
 * are all administrative still has an anchor.
 */
export function latestRecordDate(events: readonly ChartEvent[], chartText: string): string | null {
  const clinical = maxDate(events.filter((e) => !e.administrative && e.date !== null).map((e) => e.date as string));
  if (clinical) return clinical;
  return maxDate([...chartText.matchAll(DATE_IN_PARENS)].map((m) => m[1]).filter(isCalendarDate));
}

/**
 * `wall_clock` → today in the zone; a valid ISO date → itself; anything else (`latest_record`, null,
 * an impossible date) → the newest clinical record date, or null when the chart has no dates.
 */
export function resolveReferenceDate(setting: string | null, opts: AnchorInputs): ResolvedAnchor {
  const s = blankToNull(setting);
  if (s === 'wall_clock') return { anchorMode: 'wall_clock', referenceDate: wallClockDate(opts.now, opts.timezone) };
  if (s !== null && isCalendarDate(s)) return { anchorMode: 'explicit', referenceDate: s };
  return { anchorMode: 'latest_record', referenceDate: latestRecordDate(opts.events, opts.chartText) };
}
