/** A series is an item at a site; its unique id in the API is `<item_id>_<site_id>`. */
export interface SeriesKey {
  item_id: number;
  site_id: number;
}

/** The keys of unique ids as the API validated them (`<item_id>_<site_id>`, both positive integers). */
export function keysOfUniqueIds(ids: readonly string[]): SeriesKey[] {
  return ids.map((u) => {
    const [item_id, site_id] = u.split('_').map(Number);
    return { item_id, site_id };
  });
}

/** Key order: by item, then site. */
export const compareKeys = (a: SeriesKey, b: SeriesKey): number => a.item_id - b.item_id || a.site_id - b.site_id;

/** The keys from `from` (inclusive) to `to` (exclusive) in key order; a null end is open. */
export interface KeyRange {
  from: SeriesKey | null;
  to: SeriesKey | null;
}

export const inKeyRange = (k: SeriesKey, r: KeyRange): boolean =>
  (r.from === null || compareKeys(k, r.from) >= 0) && (r.to === null || compareKeys(k, r.to) < 0);

/** Half-open ranges that cover every key, cut at `cuts` (ascending): one more range than cuts. */
export const rangesCutAt = (cuts: readonly SeriesKey[]): KeyRange[] => [null, ...cuts].map((from, i) => ({ from, to: cuts[i] ?? null }));
