-- The alert ontology and the alerts it raises (docs/ALERTS.md). The formulas live in domain/alerts/ontology.ts; a
-- rule row holds what a tenant tunes (threshold, severity, enabled) and the formula text for readers.

CREATE TABLE IF NOT EXISTS alert_rules (
  metric_name text PRIMARY KEY CHECK (metric_name ~ '^[a-z][a-z0-9_]{0,99}$'),
  domain      text NOT NULL CHECK (domain IN ('forecast', 'inventory', 'supply')),
  description text NOT NULL,
  formula     text NOT NULL,
  comparison  text NOT NULL CHECK (comparison IN ('gt', 'gte', 'lt', 'lte', 'abs_gt')),
  threshold   float8 NOT NULL,
  severity    text NOT NULL CHECK (severity IN ('low', 'medium', 'high', 'critical')),
  enabled     boolean NOT NULL DEFAULT true,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Words the offline query parser maps to a metric. Deleting a rule takes its synonyms with it.
CREATE TABLE IF NOT EXISTS alert_synonyms (
  term             text PRIMARY KEY CHECK (term = lower(term) AND length(term) BETWEEN 1 AND 100),
  canonical_metric text NOT NULL REFERENCES alert_rules(metric_name) ON DELETE CASCADE ON UPDATE CASCADE
);

-- One alert per pipeline, SKU-site and metric: a new generation updates the row rather than adding one.
-- status: open (raised, nobody decided), approved (handled: the planner accepts the situation or dealt with it),
-- rejected (corrective action required: the planner disputes the plan and it must be changed).
CREATE TABLE IF NOT EXISTS alerts (
  id          bigserial PRIMARY KEY,
  pipeline_id integer NOT NULL DEFAULT 0,
  item_id     integer NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  site_id     integer NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  metric_name text NOT NULL,
  domain      text NOT NULL,
  value       float8 NOT NULL,
  threshold   float8 NOT NULL,
  comparison  text NOT NULL,
  severity    text NOT NULL,
  status      text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'approved', 'rejected')),
  message     text NOT NULL,
  job_id      text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  decided_by  text,
  decided_at  timestamptz,
  UNIQUE (pipeline_id, item_id, site_id, metric_name)
);
CREATE INDEX IF NOT EXISTS alerts_list_idx ON alerts (pipeline_id, status, metric_name);

-- What the previous generation saw of a series, for the rules about change (best method, demand class).
CREATE TABLE IF NOT EXISTS alert_series_state (
  pipeline_id  integer NOT NULL,
  item_id      integer NOT NULL REFERENCES items(id) ON DELETE CASCADE,
  site_id      integer NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
  best_method  text,
  demand_class text,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (pipeline_id, item_id, site_id)
);
