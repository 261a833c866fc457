-- Supply master data through the API (spec §4.8; docs/SUPPLY.md "Supply scenarios and master data").

-- A sales return's external_id is the sender's reference: a feed that posts the same return twice must not count it
-- twice as negative demand, so a second row with the same reference is refused (409) rather than stored.
CREATE UNIQUE INDEX IF NOT EXISTS sales_returns_external_id_key ON sales_returns (external_id) WHERE external_id IS NOT NULL;

-- GET /api/supply/item-site and /sales-returns filter by site alone; the primary keys lead with the item.
CREATE INDEX IF NOT EXISTS item_site_site_idx ON item_site (site_id, item_id);
CREATE INDEX IF NOT EXISTS sales_returns_site_idx ON sales_returns (site_id, return_date);
