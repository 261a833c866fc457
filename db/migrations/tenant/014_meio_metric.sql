-- Repairable items in the meio step (docs/INVENTORY.md, "Repairable items: METRIC"): an item whose failed units come
-- back along RETURN/REPAIR routes is planned with VARI-METRIC, one-for-one base stock at every site, and meio_results
-- rows carry echelon_model 'metric' (009 already allows any text there). The item's row says which model planned it
-- and, for METRIC, the units owed to its customers at the chosen point of its curve: what METRIC trades against
-- investment. Rows written before this migration keep NULL in both.
ALTER TABLE meio_group_results ADD COLUMN IF NOT EXISTS echelon_model text;
ALTER TABLE meio_group_results ADD COLUMN IF NOT EXISTS expected_backorders float8;
-- A schema that already has the plan-history tables (a later-numbered migration applied first) gets the new columns
-- there too, so a frozen version keeps them.
DO $$
BEGIN
  IF to_regprocedure('history_sync_columns()') IS NOT NULL THEN
    PERFORM history_sync_columns();
  END IF;
END $$;
