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
