-- Which demand streams a plan covers (docs/SUPPLY.md "Which demand a plan covers", domain/demand/streams.ts): one
-- switch per stream on every supply and MEIO scenario. Maintenance is on by default, so a planned C-check's parts are
-- ordered and stocked for; causal is off, since it models the failures the statistical forecast already learnt from
-- history; netted (supply only: MEIO plans a steady-state distribution, which netting's few weeks do not change) is
-- off, since it needs a netting refresh of the pipeline.
ALTER TABLE supply_scenarios
  ADD COLUMN IF NOT EXISTS demand_statistical boolean NOT NULL DEFAULT true,
  ADD COLUMN IF NOT EXISTS demand_netted boolean NOT NULL DEFAULT false,
  ADD COLUMN IF NOT EXISTS demand_causal boolean NOT NULL DEFAULT false,
  ADD COLUMN IF NOT EXISTS demand_maintenance boolean NOT NULL DEFAULT true;

ALTER TABLE meio_scenarios
  ADD COLUMN IF NOT EXISTS demand_statistical boolean NOT NULL DEFAULT true,
  ADD COLUMN IF NOT EXISTS demand_causal boolean NOT NULL DEFAULT false,
  ADD COLUMN IF NOT EXISTS demand_maintenance boolean NOT NULL DEFAULT true;
