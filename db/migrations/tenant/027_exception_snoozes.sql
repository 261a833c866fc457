-- Per-series snoozes of the computed exceptions (spec §4.11 `/api/exceptions/{unique_id}/{exc_type}/snooze`;
-- docs/EXCEPTIONS.md "Computed exceptions"). One row per SKU-site and exception type, for every pipeline: the (series,
-- type) is left out of GET /api/exceptions until and including until_date, and shows again after it. Expired rows are
-- not deleted; a new snooze replaces the row. Deleting the series takes its snoozes with it.
CREATE TABLE IF NOT EXISTS exception_snoozes (
  item_id    integer NOT NULL,
  site_id    integer NOT NULL,
  exc_type   text NOT NULL CHECK (exc_type IN ('forecast', 'io', 'supply')),
  until_date date NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (item_id, site_id, exc_type),
  FOREIGN KEY (item_id, site_id) REFERENCES series(item_id, site_id) ON DELETE CASCADE
);
