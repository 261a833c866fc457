/**
 * The maintenance engine (domain/maintenance/engine.ts) against hand-computed dates and quantities:
 * recurrence over a horizon, schedule entries (shift, interval, inactive), date overrides moving and cancelling
 * occurrences (into and out of the horizon), BOM × occurrences = weekly demand per series, totals = Σ series, and the
 * parts of one week.
 */
import {
  allOccurrences, expandOccurrences, isScheduledDate, occurrencesPerWeek, partsForWeek, recurrenceProblem, scheduledDates, weeklyDemand,
  weeklyTotals, type BomLine, type MaintenanceEvent, type ScheduleEntry,
} from '../../../domain/maintenance/engine';

const every4: MaintenanceEvent = { id: 1, name: 'A-check', start_date: '2026-01-05', interval_weeks: 4, end_date: null, dates: [] };
const H12 = { start: '2026-01-05', weeks: 12 }; // Mondays 2026-01-05 … 2026-03-23; 2026-03-30 is outside
const entry = (e: Partial<ScheduleEntry>): ScheduleEntry => ({ event_id: 1, active: true, shift_weeks: 0, interval_weeks: null, start_date: null, end_date: null, ...e });
const dates = (occ: ReturnType<typeof expandOccurrences>) => occ.map((o) => [o.date, o.status, o.scheduled_date]);

describe('occurrences of a recurring event', () => {
  test('every 4 weeks from 2026-01-05 over 12 weeks: 01-05, 02-02, 03-02 (03-30 falls outside)', () => {
    expect(dates(expandOccurrences(every4, undefined, [], H12))).toEqual([
      ['2026-01-05', 'scheduled', '2026-01-05'], ['2026-02-02', 'scheduled', '2026-02-02'], ['2026-03-02', 'scheduled', '2026-03-02'],
    ]);
  });

  test('a horizon starting after the first occurrence picks up the recurrence where it stands', () => {
    expect(scheduledDates(every4, undefined, '2026-01-19', '2026-03-16')).toEqual(['2026-02-02', '2026-03-02']);
    expect(scheduledDates(every4, undefined, '2026-03-03', '2026-03-30')).toEqual([]);
  });

  test('end_date is inclusive and stops the recurrence', () => {
    expect(scheduledDates({ ...every4, end_date: '2026-02-02' }, undefined, '2026-01-05', '2026-03-30')).toEqual(['2026-01-05', '2026-02-02']);
  });

  test('a midweek start counts in the week of its Monday', () => {
    const wed = { ...every4, start_date: '2026-01-07', interval_weeks: 2 };
    expect(expandOccurrences(wed, undefined, [], { start: '2026-01-05', weeks: 4 }).map((o) => [o.date, o.week])).toEqual([
      ['2026-01-07', '2026-01-05'], ['2026-01-21', '2026-01-19'],
    ]);
  });

  test('explicit dates add to the recurrence, without duplicates; an event of explicit dates only', () => {
    expect(scheduledDates({ ...every4, dates: ['2026-02-02', '2026-02-18'] }, undefined, '2026-01-05', '2026-03-30')).toEqual(['2026-01-05', '2026-02-02', '2026-02-18', '2026-03-02']);
    const oneOff: MaintenanceEvent = { id: 2, name: 'shutdown', start_date: null, interval_weeks: null, end_date: null, dates: ['2026-03-11', '2025-12-01'] };
    expect(scheduledDates(oneOff, undefined, '2026-01-05', '2026-03-30')).toEqual(['2026-03-11']);
  });
});

describe('scenario schedule entries', () => {
  test('"Deferred 4 weeks": every occurrence 4 weeks later (03-30 now falls outside)', () => {
    expect(scheduledDates(every4, entry({ shift_weeks: 4 }), '2026-01-05', '2026-03-30')).toEqual(['2026-02-02', '2026-03-02']);
    expect(scheduledDates(every4, entry({ shift_weeks: -1 }), '2025-12-29', '2026-02-02')).toEqual(['2025-12-29', '2026-01-26']);
  });

  test('another interval, start or end replaces the event\'s; inactive means no occurrence', () => {
    expect(scheduledDates(every4, entry({ interval_weeks: 6 }), '2026-01-05', '2026-03-30')).toEqual(['2026-01-05', '2026-02-16']);
    expect(scheduledDates(every4, entry({ start_date: '2026-01-12', end_date: '2026-02-09' }), '2026-01-05', '2026-03-30')).toEqual(['2026-01-12', '2026-02-09']);
    expect(scheduledDates(every4, entry({ active: false }), '2026-01-05', '2026-03-30')).toEqual([]);
  });
});

describe('date overrides', () => {
  test('move 02-02 to Wednesday 02-11 (week 02-09), cancel 03-02', () => {
    const occ = expandOccurrences(every4, undefined, [
      { event_id: 1, date: '2026-02-02', new_date: '2026-02-11' }, { event_id: 1, date: '2026-03-02', new_date: null },
    ], H12);
    expect(occ.map((o) => [o.date, o.week, o.status, o.scheduled_date])).toEqual([
      ['2026-01-05', '2026-01-05', 'scheduled', '2026-01-05'],
      ['2026-02-11', '2026-02-09', 'moved', '2026-02-02'],
      [null, '2026-03-02', 'cancelled', '2026-03-02'],
    ]);
  });

  test('moved into the horizon from outside counts; moved out does not; another event\'s or an unscheduled date does nothing', () => {
    const h = { start: '2026-01-12', weeks: 8 }; // 2026-01-12 … 2026-03-02 (exclusive of 03-09)
    const occ = expandOccurrences(every4, undefined, [
      { event_id: 1, date: '2026-01-05', new_date: '2026-01-14' },
      { event_id: 1, date: '2026-03-02', new_date: '2026-04-06' },
      { event_id: 1, date: '2026-02-03', new_date: '2026-02-24' },
      { event_id: 2, date: '2026-02-02', new_date: null },
    ], h);
    expect(dates(occ)).toEqual([['2026-01-14', 'moved', '2026-01-05'], ['2026-02-02', 'scheduled', '2026-02-02']]);
    expect(isScheduledDate(every4, undefined, '2026-02-02')).toBe(true);
    expect(isScheduledDate(every4, undefined, '2026-02-03')).toBe(false);
    expect(isScheduledDate(every4, entry({ shift_weeks: 1 }), '2026-02-09')).toBe(true);
  });
});

describe('demand', () => {
  // E1 every 4 weeks: 2 of item 1 and 5 of item 2 at site 1. E2 once on Wednesday 2026-02-04: 3 of item 1 at site 1.
  const e2: MaintenanceEvent = { id: 2, name: 'Inspection', start_date: null, interval_weeks: null, end_date: null, dates: ['2026-02-04'] };
  const bom: BomLine[] = [
    { event_id: 1, item_id: 1, site_id: 1, qty_per_occurrence: 2 },
    { event_id: 1, item_id: 2, site_id: 1, qty_per_occurrence: 5 },
    { event_id: 2, item_id: 1, site_id: 1, qty_per_occurrence: 3 },
  ];
  const occ = allOccurrences([every4, e2], [], [], H12);

  test('BOM × occurrences = weekly demand per series; totals = Σ series', () => {
    const series = weeklyDemand(occ, bom, H12);
    const at = (k: Record<number, number>) => Array.from({ length: 12 }, (_, i) => k[i] ?? 0);
    expect(series).toEqual([
      { item_id: 1, site_id: 1, unique_id: '1_1', values: at({ 0: 2, 4: 5, 8: 2 }), total: 9 },
      { item_id: 2, site_id: 1, unique_id: '2_1', values: at({ 0: 5, 4: 5, 8: 5 }), total: 15 },
    ]);
    expect(weeklyTotals(series, H12)).toEqual(at({ 0: 7, 4: 10, 8: 7 }));
  });

  test('a cancelled occurrence consumes nothing; a moved one consumes in its new week', () => {
    const o = allOccurrences([every4], [], [{ event_id: 1, date: '2026-01-05', new_date: null }, { event_id: 1, date: '2026-02-02', new_date: '2026-02-17' }], H12);
    expect(weeklyDemand(o, bom, H12).map((x) => [x.unique_id, x.values.map((v, k) => (v ? `${k}:${v}` : '')).filter(Boolean)])).toEqual([
      ['1_1', ['6:2', '8:2']], ['2_1', ['6:5', '8:5']],
    ]);
  });

  test('the parts of week 2026-02-02, and events per week', () => {
    expect(partsForWeek(occ, bom, '2026-02-02')).toEqual([
      { item_id: 1, site_id: 1, unique_id: '1_1', qty: 5, events: [{ event_id: 1, date: '2026-02-02', qty: 2 }, { event_id: 2, date: '2026-02-04', qty: 3 }] },
      { item_id: 2, site_id: 1, unique_id: '2_1', qty: 5, events: [{ event_id: 1, date: '2026-02-02', qty: 5 }] },
    ]);
    expect(partsForWeek(occ, bom, '2026-02-09')).toEqual([]);
    const weeks = occurrencesPerWeek(occ, H12);
    expect(weeks.map((w) => w.occurrences.length)).toEqual([1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0]);
    expect(weeks[4].week).toBe('2026-02-02');
  });
});

test('recurrence checks name the field', () => {
  expect(recurrenceProblem({ start_date: null, interval_weeks: 4, end_date: null, dates: [] })?.field).toBe('start_date');
  expect(recurrenceProblem({ start_date: null, interval_weeks: null, end_date: null, dates: [] })?.field).toBe('dates');
  expect(recurrenceProblem({ start_date: '2026-02-02', interval_weeks: 4, end_date: '2026-01-05', dates: [] })?.field).toBe('end_date');
  expect(recurrenceProblem({ start_date: '2026-02-02', interval_weeks: 4, end_date: null, dates: [] })).toBeUndefined();
});
