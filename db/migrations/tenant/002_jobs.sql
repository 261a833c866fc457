-- Jobs: one row per Temporal workflow the API starts; the workflow id is the job id. Temporal owns execution,
-- this table owns what planners query (status, progress, who, which pipeline) and survives Temporal retention.
CREATE TABLE IF NOT EXISTS jobs (
  job_id        text PRIMARY KEY,
  kind          text NOT NULL,
  step          text,
  parent_job_id text REFERENCES jobs(job_id) ON DELETE CASCADE,
  pipeline_id   integer,
  scenario_id   integer,
  segment_id    integer,
  status        text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed', 'killed')),
  params        jsonb NOT NULL DEFAULT '{}',
  progress      jsonb NOT NULL DEFAULT '{}',
  result        jsonb,
  error         text,
  created_by    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  started_at    timestamptz,
  finished_at   timestamptz,
  heartbeat_at  timestamptz
);
CREATE INDEX IF NOT EXISTS jobs_created_idx ON jobs (created_at DESC);
CREATE INDEX IF NOT EXISTS jobs_parent_idx ON jobs (parent_job_id);
CREATE INDEX IF NOT EXISTS jobs_status_idx ON jobs (status);

CREATE TABLE IF NOT EXISTS job_logs (
  id      bigserial PRIMARY KEY,
  job_id  text NOT NULL REFERENCES jobs(job_id) ON DELETE CASCADE,
  ts      timestamptz NOT NULL DEFAULT now(),
  level   text NOT NULL DEFAULT 'info' CHECK (level IN ('debug', 'info', 'warning', 'error')),
  message text NOT NULL
);
CREATE INDEX IF NOT EXISTS job_logs_job_idx ON job_logs (job_id, id);

-- Raw demand as imported (any date); the etl step turns it into weekly series.
CREATE TABLE IF NOT EXISTS demand_history (
  item_id integer NOT NULL REFERENCES items(id),
  site_id integer NOT NULL REFERENCES sites(id),
  ds      date NOT NULL,
  qty     numeric NOT NULL,
  PRIMARY KEY (item_id, site_id, ds)
);

-- Clean weekly demand per series (weeks start Monday, gaps filled with zeros), written by the etl step.
CREATE TABLE IF NOT EXISTS series_weekly (
  item_id integer NOT NULL,
  site_id integer NOT NULL,
  week    date NOT NULL CHECK (extract(isodow FROM week) = 1),
  y       numeric NOT NULL,
  PRIMARY KEY (item_id, site_id, week)
);

ALTER TABLE series ADD COLUMN IF NOT EXISTS n_observations integer;
ALTER TABLE series ADD COLUMN IF NOT EXISTS date_range_start date;
ALTER TABLE series ADD COLUMN IF NOT EXISTS date_range_end date;
ALTER TABLE series ADD COLUMN IF NOT EXISTS mean numeric;
ALTER TABLE series ADD COLUMN IF NOT EXISTS zero_ratio numeric;
ALTER TABLE series ADD COLUMN IF NOT EXISTS total_demand numeric;
ALTER TABLE series ADD COLUMN IF NOT EXISTS updated_at timestamptz;
