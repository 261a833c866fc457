/**
 * Maintenance demand (spec §4.10; docs/MAINTENANCE.md): from events, their recurrence and BOM, and a scenario's
 * schedule entries and date overrides, to the occurrences over a horizon and the weekly part demand per series
 * (item × site). Pure: dates are `YYYY-MM-DD` strings, weeks are their Mondays.
 */
import { addWeeks, dateOfDay, dayNumber, mondayOf } from '../time/weeks';

/** An event as defined: every `interval_weeks` from `start_date` up to `end_date` (inclusive), plus the explicit `dates`. */
export interface MaintenanceEvent {
  id: number;
  name: string;
  start_date: string | null;
  interval_weeks: number | null;
  end_date: string | null;
  dates: string[];
}

/** One event's entry in a scenario's schedule: what the scenario changes about its recurrence. */
export interface ScheduleEntry {
  event_id: number;
  /** false: the event does not happen in this scenario */
  active: boolean;
  /** every occurrence (recurring and explicit) moved by whole weeks; > 0 defers, < 0 advances */
  shift_weeks: number;
  /** null: the event's own */
  interval_weeks: number | null;
  start_date: string | null;
  end_date: string | null;
}

/** One occurrence moved (`new_date`) or cancelled (`new_date` null); `date` is the date the schedule gives it. */
export interface DateOverride {
  event_id: number;
  date: string;
  new_date: string | null;
}

export interface BomLine {
  event_id: number;
  item_id: number;
  site_id: number;
  qty_per_occurrence: number;
}

/** `weeks` Mondays from `start` (a Monday). */
export interface Horizon {
  start: string;
  weeks: number;
}

export type OccurrenceStatus = 'scheduled' | 'moved' | 'cancelled';

export interface Occurrence {
  event_id: number;
  /** the date it happens; null when cancelled */
  date: string | null;
  /** Monday of `date` (of `scheduled_date` when cancelled) */
  week: string;
  /** the date the recurrence and the schedule entry give it, before any date override */
  scheduled_date: string;
  status: OccurrenceStatus;
}

export const horizonEnd = (h: Horizon): string => addWeeks(h.start, h.weeks);
export const horizonWeeks = (h: Horizon): string[] => Array.from({ length: h.weeks }, (_, k) => addWeeks(h.start, k));
const inHorizon = (d: string, h: Horizon): boolean => d >= h.start && d < horizonEnd(h);

/** The recurrence an event follows in a scenario: its own, with the schedule entry's fields where they are set. */
export function effectiveRecurrence(e: MaintenanceEvent, entry: ScheduleEntry | undefined) {
  return {
    active: entry?.active ?? true,
    shift_weeks: entry?.shift_weeks ?? 0,
    start_date: entry?.start_date ?? e.start_date,
    interval_weeks: entry?.interval_weeks ?? e.interval_weeks,
    end_date: entry?.end_date ?? e.end_date,
    dates: e.dates,
  };
}

/**
 * The dates the schedule gives an event (before date overrides) from `from` (inclusive) to `to` (exclusive), sorted,
 * without duplicates: start + k·interval weeks (k ≥ 0) not after the end date, and the explicit dates, all moved by the
 * shift. An inactive event has none.
 */
export function scheduledDates(e: MaintenanceEvent, entry: ScheduleEntry | undefined, from: string, to: string): string[] {
  const r = effectiveRecurrence(e, entry);
  if (!r.active || from >= to) return [];
  const out = new Set<string>();
  const shiftDays = 7 * r.shift_weeks;
  if (r.interval_weeks !== null && r.start_date !== null) {
    const step = 7 * r.interval_weeks;
    const first = dayNumber(r.start_date) + shiftDays;
    const last = r.end_date === null ? Infinity : dayNumber(r.end_date) + shiftDays;
    const lo = dayNumber(from);
    const hi = Math.min(dayNumber(to) - 1, last);
    for (let d = first + Math.max(0, Math.ceil((lo - first) / step)) * step; d <= hi; d += step) out.add(dateOfDay(d));
  }
  for (const d of r.dates) {
    const moved = dateOfDay(dayNumber(d) + shiftDays);
    if (moved >= from && moved < to) out.add(moved);
  }
  return [...out].sort();
}

/** Whether `date` is one of the dates the schedule gives the event (a date override must name one). */
export function isScheduledDate(e: MaintenanceEvent, entry: ScheduleEntry | undefined, date: string): boolean {
  return scheduledDates(e, entry, date, dateOfDay(dayNumber(date) + 1)).length === 1;
}

/**
 * The occurrences of one event over the horizon, ordered by date (cancelled ones by their scheduled date, last among
 * equals). An occurrence counts when its final date is in the horizon: one moved into the horizon from outside counts,
 * one moved out does not. A cancelled occurrence is listed when its scheduled date is in the horizon. Overrides whose
 * date is no scheduled date (the schedule changed since) do nothing.
 */
export function expandOccurrences(e: MaintenanceEvent, entry: ScheduleEntry | undefined, overrides: readonly DateOverride[], h: Horizon): Occurrence[] {
  const own = overrides.filter((o) => o.event_id === e.id);
  const byDate = new Map(own.map((o) => [o.date, o]));
  const out: Occurrence[] = [];
  for (const d of scheduledDates(e, entry, h.start, horizonEnd(h))) {
    const o = byDate.get(d);
    if (!o) out.push({ event_id: e.id, date: d, week: mondayOf(d), scheduled_date: d, status: 'scheduled' });
    else if (o.new_date === null) out.push({ event_id: e.id, date: null, week: mondayOf(d), scheduled_date: d, status: 'cancelled' });
    else if (inHorizon(o.new_date, h)) out.push({ event_id: e.id, date: o.new_date, week: mondayOf(o.new_date), scheduled_date: d, status: o.new_date === d ? 'scheduled' : 'moved' });
  }
  // moved into the horizon from a scheduled date outside it
  for (const o of own) {
    if (o.new_date === null || inHorizon(o.date, h) || !inHorizon(o.new_date, h)) continue;
    if (isScheduledDate(e, entry, o.date)) out.push({ event_id: e.id, date: o.new_date, week: mondayOf(o.new_date), scheduled_date: o.date, status: 'moved' });
  }
  const key = (x: Occurrence) => `${x.date ?? x.scheduled_date}${x.date === null ? '1' : '0'}${x.scheduled_date}`;
  return out.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** Every event's occurrences in a scenario (entries and overrides of that scenario; none for the events as defined). */
export function allOccurrences(events: readonly MaintenanceEvent[], entries: readonly ScheduleEntry[], overrides: readonly DateOverride[], h: Horizon): Occurrence[] {
  const entryOf = new Map(entries.map((x) => [x.event_id, x]));
  return events.flatMap((e) => expandOccurrences(e, entryOf.get(e.id), overrides, h));
}

export const seriesKey = (itemId: number, siteId: number) => `${itemId}_${siteId}`;

/** Weekly part demand of one series over the horizon, dense (`values[k]` is week start + k), with its total. */
export interface SeriesDemand {
  item_id: number;
  site_id: number;
  unique_id: string;
  values: number[];
  total: number;
}

/**
 * BOM × occurrences: each occurrence that happens (not cancelled) in week k adds qty_per_occurrence of every BOM line
 * of its event to that line's series in week k. Series ordered by item id, then site id; a series appears when one of
 * its lines has an occurrence in the horizon.
 */
export function weeklyDemand(occurrences: readonly Occurrence[], bom: readonly BomLine[], h: Horizon): SeriesDemand[] {
  const linesOf = new Map<number, BomLine[]>();
  for (const l of bom) linesOf.set(l.event_id, [...(linesOf.get(l.event_id) ?? []), l]);
  const series = new Map<string, SeriesDemand>();
  for (const o of occurrences) {
    if (o.date === null) continue;
    const k = Math.round((dayNumber(o.week) - dayNumber(h.start)) / 7);
    if (k < 0 || k >= h.weeks) continue;
    for (const l of linesOf.get(o.event_id) ?? []) {
      const key = seriesKey(l.item_id, l.site_id);
      let s = series.get(key);
      if (!s) series.set(key, (s = { item_id: l.item_id, site_id: l.site_id, unique_id: key, values: new Array(h.weeks).fill(0), total: 0 }));
      s.values[k] += l.qty_per_occurrence;
      s.total += l.qty_per_occurrence;
    }
  }
  return [...series.values()].sort((a, b) => a.item_id - b.item_id || a.site_id - b.site_id);
}

/** Σ over the series, per week: the demand summary's weekly totals. */
export function weeklyTotals(series: readonly SeriesDemand[], h: Horizon): number[] {
  const out = new Array(h.weeks).fill(0);
  for (const s of series) s.values.forEach((v, k) => (out[k] += v));
  return out;
}

/** The parts one week needs: per BOM line with an occurrence that week, the qty, with the occurrences it comes from. */
export interface WeekPart {
  item_id: number;
  site_id: number;
  unique_id: string;
  qty: number;
  events: Array<{ event_id: number; date: string; qty: number }>;
}

export function partsForWeek(occurrences: readonly Occurrence[], bom: readonly BomLine[], week: string): WeekPart[] {
  const parts = new Map<string, WeekPart>();
  for (const o of occurrences) {
    if (o.date === null || o.week !== week) continue;
    for (const l of bom) {
      if (l.event_id !== o.event_id) continue;
      const key = seriesKey(l.item_id, l.site_id);
      let p = parts.get(key);
      if (!p) parts.set(key, (p = { item_id: l.item_id, site_id: l.site_id, unique_id: key, qty: 0, events: [] }));
      p.qty += l.qty_per_occurrence;
      p.events.push({ event_id: o.event_id, date: o.date, qty: l.qty_per_occurrence });
    }
  }
  return [...parts.values()].sort((a, b) => a.item_id - b.item_id || a.site_id - b.site_id);
}

/** Occurrences that happen (not cancelled) per week of the horizon, dense. */
export function occurrencesPerWeek(occurrences: readonly Occurrence[], h: Horizon): Array<{ week: string; occurrences: Occurrence[] }> {
  const weeks = horizonWeeks(h).map((week) => ({ week, occurrences: [] as Occurrence[] }));
  for (const o of occurrences) {
    if (o.date === null) continue;
    const k = Math.round((dayNumber(o.week) - dayNumber(h.start)) / 7);
    if (k >= 0 && k < h.weeks) weeks[k].occurrences.push(o);
  }
  return weeks;
}

/** The recurrence checks an event must pass, as {field, message}; field names are the API's. */
export function recurrenceProblem(r: { start_date: string | null; interval_weeks: number | null; end_date: string | null; dates: readonly string[] }): { field: string; message: string } | undefined {
  if (r.interval_weeks !== null && r.start_date === null) return { field: 'start_date', message: 'a recurring event (interval_weeks set) needs a start_date' };
  if (r.interval_weeks === null && r.dates.length === 0) return { field: 'dates', message: 'an event without interval_weeks needs at least one date' };
  if (r.end_date !== null && r.start_date !== null && r.end_date < r.start_date) return { field: 'end_date', message: `end_date ${r.end_date} is before start_date ${r.start_date}` };
  return undefined;
}
