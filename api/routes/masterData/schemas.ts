import { nullable, obj, out, skipParam } from '../schemas';
import type { JsonSchema } from '../validation';
import { id32 } from '../scenarios/schemas';

export const listQuery = obj({
  skip: skipParam,
  limit: { type: 'integer', minimum: 1, maximum: 50000, default: 200 },
  search: { type: 'string', maxLength: 200, description: 'case-insensitive substring of the code (xuid) or name' },
});

export const itemSchema: JsonSchema = out({
  id: { type: 'integer' },
  xuid: { type: 'string', description: 'item code' },
  name: { type: 'string' },
  image_url: nullable({ type: 'string' }),
  attributes: { type: 'object' },
  avg_unit_cost: { type: 'number', description: '0 when unknown' },
  unit_price: { type: 'number', description: '0 when unknown' },
  series_count: { type: 'integer', description: 'series of the item the caller may see' },
  updated_at: nullable({ type: 'string', format: 'date-time' }),
});

export const siteSchema: JsonSchema = out({
  id: { type: 'integer' },
  xuid: { type: 'string', description: 'site code' },
  name: { type: 'string' },
  site_type: nullable({ type: 'string' }),
  attributes: { type: 'object' },
  series_count: { type: 'integer', description: 'series at the site the caller may see' },
  updated_at: nullable({ type: 'string', format: 'date-time' }),
});

export const itemIdParams = obj({ item_id: id32 }, ['item_id']);

export const imageBody = obj(
  { image_url: { ...nullable({ type: 'string', format: 'uri', maxLength: 2000, pattern: '^(https?://|/)' }), description: 'http(s) URL or a path on this host; null removes the image' } },
  ['image_url'],
);
