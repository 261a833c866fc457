-- Maintenance demand (spec §4.10 "Maintenance"; docs/MAINTENANCE.md). The spec names the routes only; the records
-- below are this service's design. An event (an A-check on an aircraft or a fleet, a plant shutdown) recurs every
-- interval_weeks from start_date until end_date, and/or on explicit dates; its BOM says which parts one occurrence
-- consumes, how many and at which site. A maintenance scenario holds, per event, a schedule entry (inactive, shifted
-- by whole weeks, another interval, start or end) and date overrides (one occurrence moved or cancelled).
-- Deleting an event, a scenario, an item or a site deletes the rows that name it.

CREATE TABLE IF NOT EXISTS maintenance_events (
  id             serial PRIMARY KEY,
  name           text NOT NULL UNIQUE,
  description    text,
  event_type     text,
  asset          text,
  start_date     date,
  interval_weeks integer CHECK (interval_weeks IS NULL OR interval_weeks BETWEEN 1 AND 520),
  end_date       date,
  dates          date[] NOT NULL DEFAULT '{}',
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  CHECK (interval_weeks IS NULL OR start_date IS NOT NULL),
  CHECK (end_date IS NULL OR start_date IS NULL OR end_date >= start_date)
);

CREATE TABLE IF NOT EXISTS maintenance_event_bom (
  event_id           integer NOT NULL REFERENCES maintenance_events(id) ON DELETE CASCADE,
  item_id            integer NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  site_id            integer NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  qty_per_occurrence double precision NOT NULL CHECK (qty_per_occurrence > 0),
  PRIMARY KEY (event_id, item_id, site_id)
);
CREATE INDEX IF NOT EXISTS maintenance_event_bom_series_idx ON maintenance_event_bom (item_id, site_id);

CREATE TABLE IF NOT EXISTS maintenance_scenarios (
  id          serial PRIMARY KEY,
  name        text NOT NULL UNIQUE,
  description text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS maintenance_schedules (
  scenario_id    integer NOT NULL REFERENCES maintenance_scenarios(id) ON DELETE CASCADE,
  event_id       integer NOT NULL REFERENCES maintenance_events(id) ON DELETE CASCADE,
  active         boolean NOT NULL DEFAULT true,
  shift_weeks    integer NOT NULL DEFAULT 0 CHECK (shift_weeks BETWEEN -520 AND 520),
  interval_weeks integer CHECK (interval_weeks IS NULL OR interval_weeks BETWEEN 1 AND 520),
  start_date     date,
  end_date       date,
  PRIMARY KEY (scenario_id, event_id)
);

CREATE TABLE IF NOT EXISTS maintenance_date_overrides (
  scenario_id integer NOT NULL REFERENCES maintenance_scenarios(id) ON DELETE CASCADE,
  event_id    integer NOT NULL REFERENCES maintenance_events(id) ON DELETE CASCADE,
  date        date NOT NULL,
  new_date    date,
  PRIMARY KEY (scenario_id, event_id, date)
);
