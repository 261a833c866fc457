-- Supersession edges (document 2 §2.4, §4.4; docs/SUPERSESSION.md). The table comes from migration 003.

-- Rule 6: deleting an item or a site deletes the edges it takes part in. Migration 003 made plain references, under
-- which such a delete failed instead (an import in replace mode that drops an item with edges). Dropped and added
-- again, so running the file twice ends in the same state.
ALTER TABLE supersession
  DROP CONSTRAINT IF EXISTS supersession_from_item_id_fkey,
  DROP CONSTRAINT IF EXISTS supersession_to_item_id_fkey,
  DROP CONSTRAINT IF EXISTS supersession_site_id_fkey;
ALTER TABLE supersession
  ADD CONSTRAINT supersession_from_item_id_fkey FOREIGN KEY (from_item_id) REFERENCES items(id) ON DELETE CASCADE,
  ADD CONSTRAINT supersession_to_item_id_fkey FOREIGN KEY (to_item_id) REFERENCES items(id) ON DELETE CASCADE,
  ADD CONSTRAINT supersession_site_id_fkey FOREIGN KEY (site_id) REFERENCES sites(id) ON DELETE CASCADE;

-- demand_factor > 0, as the API and the import check it; the import accepted 0 before, so existing rows are not
-- re-checked (NOT VALID) and a tenant holding one still migrates.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'supersession_demand_factor_positive' AND conrelid = 'supersession'::regclass) THEN
    ALTER TABLE supersession ADD CONSTRAINT supersession_demand_factor_positive CHECK (demand_factor > 0) NOT VALID;
  END IF;
END $$;

-- The chain walks go both ways: the natural key index serves from_item_id, this one the walk up to the predecessors
-- and the cascade from a deleted successor or site.
CREATE INDEX IF NOT EXISTS supersession_to_item_idx ON supersession (to_item_id);
CREATE INDEX IF NOT EXISTS supersession_site_idx ON supersession (site_id) WHERE site_id IS NOT NULL;
