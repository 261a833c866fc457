-- Outputs of the forecasting steps (outlier → characterization → forecast → backtest → backtest-forecast →
-- best-method → distribution). Every result table is scoped by pipeline_id: the scenario pipeline the step ran for,
-- 0 for a run outside any pipeline (the tenant's default results). A step rewrites the rows of the series in its chunk
-- for its pipeline, so a retried chunk never duplicates rows and two pipelines never overwrite each other.
-- Weekly vectors are float8[] aligned on a start week (Monday): element i is the week start_week + 7·i days; NULL in a
-- history vector is a closed week (calendar), as in series_weekly.

CREATE TABLE IF NOT EXISTS series_outliers (
  pipeline_id  integer NOT NULL DEFAULT 0,
  item_id      integer NOT NULL,
  site_id      integer NOT NULL,
  start_week   date NOT NULL CHECK (extract(isodow FROM start_week) = 1),
  corrected_y  float8[] NOT NULL,
  method       text NOT NULL,
  params       jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(params) = 'object'),
  -- [{ds, y, corrected_y, score, direction}] of the flagged weeks
  outliers     jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(outliers) = 'array'),
  n_outliers   integer NOT NULL DEFAULT 0,
  job_id       text,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (pipeline_id, item_id, site_id),
  FOREIGN KEY (item_id, site_id) REFERENCES series(item_id, site_id) ON DELETE CASCADE
);

CREATE TABLE IF NOT EXISTS series_characteristics (
  pipeline_id         integer NOT NULL DEFAULT 0,
  item_id             integer NOT NULL,
  site_id             integer NOT NULL,
  n_observations      integer NOT NULL,
  mean                float8,
  adi                 float8,
  cv2                 float8,
  zero_ratio          float8,
  cov                 float8,
  demand_class        text NOT NULL CHECK (demand_class IN ('smooth', 'erratic', 'intermittent', 'lumpy')),
  is_intermittent     boolean NOT NULL,
  has_seasonality     boolean NOT NULL,
  seasonal_period     integer NOT NULL,
  has_trend           boolean NOT NULL,
  complexity_level    text NOT NULL,
  recommended_methods text[] NOT NULL DEFAULT '{}',
  -- test statistics behind the flags (ACF, Mann-Kendall, …)
  details             jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(details) = 'object'),
  job_id              text,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (pipeline_id, item_id, site_id),
  FOREIGN KEY (item_id, site_id) REFERENCES series(item_id, site_id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS series_characteristics_class_idx ON series_characteristics (pipeline_id, demand_class);

-- One row per series and method: the forecast fitted on the whole (corrected, adjusted) history.
CREATE TABLE IF NOT EXISTS forecast_results (
  pipeline_id integer NOT NULL DEFAULT 0,
  item_id     integer NOT NULL,
  site_id     integer NOT NULL,
  method      text NOT NULL,
  scenario_id integer,
  start_week  date NOT NULL CHECK (extract(isodow FROM start_week) = 1),
  yhat        float8[] NOT NULL,
  yhat_lower  float8[] NOT NULL,
  yhat_upper  float8[] NOT NULL,
  level       float8 NOT NULL CHECK (level > 0 AND level < 1),
  params      jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(params) = 'object'),
  job_id      text,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (pipeline_id, item_id, site_id, method),
  FOREIGN KEY (item_id, site_id) REFERENCES series(item_id, site_id) ON DELETE CASCADE,
  CHECK (cardinality(yhat) = cardinality(yhat_lower) AND cardinality(yhat) = cardinality(yhat_upper))
);

-- Rolling-origin accuracy per series and method (backtest step; the combination's row comes from best-method).
CREATE TABLE IF NOT EXISTS backtest_metrics (
  pipeline_id       integer NOT NULL DEFAULT 0,
  item_id           integer NOT NULL,
  site_id           integer NOT NULL,
  method            text NOT NULL,
  mae               float8,
  rmse              float8,
  mase              float8,
  bias              float8,
  coverage_90       float8,
  smape             float8,
  origins_evaluated integer NOT NULL DEFAULT 0,
  points            integer NOT NULL DEFAULT 0,
  job_id            text,
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (pipeline_id, item_id, site_id, method),
  FOREIGN KEY (item_id, site_id) REFERENCES series(item_id, site_id) ON DELETE CASCADE
);

-- Forecasts made at past origins. origin_week is the last week of training data; the forecast starts the week after.
-- kind 'window': the backtest step's scored windows (horizon_weeks long, with the actuals);
-- kind 'origin': the backtest-forecast step's full-horizon forecasts from each origin (evolution, convergence, origins API).
CREATE TABLE IF NOT EXISTS backtest_forecasts (
  pipeline_id integer NOT NULL DEFAULT 0,
  item_id     integer NOT NULL,
  site_id     integer NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('window', 'origin')),
  method      text NOT NULL,
  origin_week date NOT NULL CHECK (extract(isodow FROM origin_week) = 1),
  yhat        float8[] NOT NULL,
  yhat_lower  float8[] NOT NULL,
  yhat_upper  float8[] NOT NULL,
  actual      float8[],
  job_id      text,
  PRIMARY KEY (pipeline_id, item_id, site_id, kind, method, origin_week),
  FOREIGN KEY (item_id, site_id) REFERENCES series(item_id, site_id) ON DELETE CASCADE
);

CREATE TABLE IF NOT EXISTS series_best_method (
  pipeline_id      integer NOT NULL DEFAULT 0,
  item_id          integer NOT NULL,
  site_id          integer NOT NULL,
  best_method      text NOT NULL,
  runner_up_method text,
  best_score       float8,
  metric           text NOT NULL,
  locked           boolean NOT NULL DEFAULT false,
  -- [{method, score, origins_evaluated}] best first
  ranking          jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(ranking) = 'array'),
  reason           text,
  job_id           text,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (pipeline_id, item_id, site_id),
  FOREIGN KEY (item_id, site_id) REFERENCES series(item_id, site_id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS series_best_method_method_idx ON series_best_method (pipeline_id, best_method);

-- A planner's lock: the forecast step always fits this method and best-method always picks it. Tenant-wide.
CREATE TABLE IF NOT EXISTS series_locked_methods (
  item_id    integer NOT NULL,
  site_id    integer NOT NULL,
  method     text NOT NULL,
  locked_by  text,
  locked_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (item_id, site_id),
  FOREIGN KEY (item_id, site_id) REFERENCES series(item_id, site_id) ON DELETE CASCADE
);

CREATE TABLE IF NOT EXISTS series_distributions (
  pipeline_id             integer NOT NULL DEFAULT 0,
  item_id                 integer NOT NULL,
  site_id                 integer NOT NULL,
  distribution_type       text NOT NULL CHECK (distribution_type IN ('normal', 'gamma', 'poisson', 'negative_binomial', 'empirical')),
  mean                    float8,
  std                     float8,
  params                  jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(params) = 'object'),
  ks_statistic            float8,
  ks_pvalue               float8,
  service_level_quantiles jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(service_level_quantiles) = 'object'),
  -- every candidate's fit: [{distribution_type, params, ks_statistic, ks_pvalue, ...}]
  candidates              jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(candidates) = 'array'),
  -- 'weekly' or 'lead_time' (demand summed over lead_time_weeks)
  basis                   text NOT NULL DEFAULT 'weekly',
  lead_time_weeks         float8,
  n                       integer NOT NULL DEFAULT 0,
  job_id                  text,
  updated_at              timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (pipeline_id, item_id, site_id),
  FOREIGN KEY (item_id, site_id) REFERENCES series(item_id, site_id) ON DELETE CASCADE
);

-- Demand corrections a planner enters (spec §2.4): a past week replaces the history the forecast is fitted on; a
-- future week replaces the forecast of that week (copy-forecast writes these). Tenant-wide, one per series and week.
CREATE TABLE IF NOT EXISTS demand_adjustments (
  id          serial PRIMARY KEY,
  item_id     integer NOT NULL,
  site_id     integer NOT NULL,
  ds          date NOT NULL CHECK (extract(isodow FROM ds) = 1),
  corrected_y float8 NOT NULL CHECK (corrected_y >= 0),
  reason      text,
  source      text NOT NULL DEFAULT 'manual' CHECK (source IN ('manual', 'copy_forecast')),
  created_by  text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (item_id, site_id, ds),
  FOREIGN KEY (item_id, site_id) REFERENCES series(item_id, site_id) ON DELETE CASCADE
);
