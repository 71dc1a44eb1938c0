import { anchorSettingFor, resolveReferenceDate, wallClockDate } from '../../../../server/checks/temporal/anchor';
import { parseEvents } from '../../../../server/checks/temporal/parse';

const NOW = new Date('2026-07-11T03:00:00Z');

function resolve(setting: string | null, chartText: string, timezone: string | null = null) {
  return resolveReferenceDate(setting, { now: NOW, timezone, events: parseEvents(chartText), chartText });
}

const CLINICAL = '[1] (2026-02-01) Finding — Weight (kg): 70 kg\n[2] (2026-03-02) Encounter: Adult Visit\n[3] (2025-12-01) Allergy: Penicillin';

describe('anchorSettingFor (§4.7 precedence)', () => {
  test.each([
    ['profile wins over env', '2026-01-31', 'wall_clock', true, '2026-01-31'],
    ['profile latest_record wins over product default', 'latest_record', null, true, 'latest_record'],
    ['env when the profile has none', null, '2026-03-10', false, '2026-03-10'],
    ['env overrides the product default', null, 'latest_record', true, 'latest_record'],
    ['product defaults to wall_clock', null, null, true, 'wall_clock'],
    ['legs default to latest record (null)', null, null, false, null],
    ['blank values count as unset', '  ', '', true, 'wall_clock'],
  ] as const)('%s', (_name, profile, env, isProduct, expected) => {
    expect(anchorSettingFor(profile, env, isProduct)).toBe(expected);
  });
});

describe('resolveReferenceDate', () => {
  test.each([
    ['wall clock in Honolulu is still the previous day', 'wall_clock', CLINICAL, 'Pacific/Honolulu', 'wall_clock', '2026-07-10'],
    ['wall clock in UTC', 'wall_clock', CLINICAL, 'UTC', 'wall_clock', '2026-07-11'],
    ['wall clock east of UTC', 'wall_clock', '', 'Asia/Tokyo', 'wall_clock', '2026-07-11'],
    ['explicit ISO date passes through', '2026-03-10', CLINICAL, null, 'explicit', '2026-03-10'],
    ['explicit date ignores the chart', '1999-01-01', '', null, 'explicit', '1999-01-01'],
    ['latest_record = newest clinical date', 'latest_record', CLINICAL, null, 'latest_record', '2026-03-02'],
    ['null setting = latest_record', null, CLINICAL, null, 'latest_record', '2026-03-02'],
    ['impossible date falls back to latest_record', '2026-02-30', CLINICAL, null, 'latest_record', '2026-03-02'],
    ['carried-forward dates count', null, '[1] (2026-01-01) Encounter: Visit\n[2] (2026-04-01) Finding — Weight (kg): 70 kg\n[3] Finding — Height (cm): 170 cm', null, 'latest_record', '2026-04-01'],
    ['Program enrollment excluded', null, `${CLINICAL}\n[4] (2026-06-01) Program: HIV Care. Enrolled`, null, 'latest_record', '2026-03-02'],
    ['[administrative] marker excluded', null, `${CLINICAL}\n[4] (2026-06-01) Patient: Jane Doe [administrative]`, null, 'latest_record', '2026-03-02'],
    ['[unknown] marker excluded', null, `${CLINICAL}\n[4] (2026-06-02) Condition: Asthma [unknown]`, null, 'latest_record', '2026-03-02'],
    ['all dates administrative ⇒ any (date) in the text', null, '[1] (2026-06-01) Program: HIV Care\n[2] (2026-05-01) Patient: Jane [administrative]', null, 'latest_record', '2026-06-01'],
    ['no dates ⇒ null', null, '[1] Encounter: Visit\n[2] Finding — Weight (kg): 70 kg', null, 'latest_record', null],
    ['empty chart ⇒ null', 'latest_record', '', null, 'latest_record', null],
  ])('%s', (_name, setting, chartText, timezone, anchorMode, referenceDate) => {
    expect(resolve(setting, chartText, timezone)).toEqual({ anchorMode, referenceDate });
  });

  test('wall clock without a zone uses the process zone', () => {
    const expected = new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit' }).format(NOW);
    expect(resolve('wall_clock', CLINICAL).referenceDate).toBe(expected);
    expect(wallClockDate(NOW, null)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  test('the clock is an argument: the same inputs give the same date', () => {
    expect(wallClockDate(new Date('2026-01-01T09:59:59Z'), 'Pacific/Honolulu')).toBe('2025-12-31');
    expect(wallClockDate(new Date('2026-01-01T10:00:00Z'), 'Pacific/Honolulu')).toBe('2026-01-01');
  });
});
