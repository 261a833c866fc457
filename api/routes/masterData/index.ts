import { getItem, listItems, listSites, setItemImage } from '../../../db/items';
import { withTenant } from '../../../db/pool';
import { seriesScope, visibleSegmentIds } from '../../../db/segments';
import type { AuthUser } from '../../context';
import { notFound } from '../../errors';
import { defineRoute, type RouteTable } from '../define';
import { errors } from '../schemas';
import * as s from './schemas';

const scopeOf = (user: AuthUser) => (visibleSegmentIds(user) === null ? null : seriesScope(user, 's'));

export function registerMasterDataRoutes(table: RouteTable): void {
  const tag = 'master data';

  defineRoute(table, {
    method: 'get', path: '/api/items', tag,
    summary: 'Items',
    description: 'By id, with attributes and prices; `search` matches code or name. Users restricted to segments see the items of their series only. The total is in `X-Total-Count`.',
    query: s.listQuery,
    responses: { 200: { description: 'items', schema: { type: 'array', items: s.itemSchema } }, ...errors(400) },
    handler: async (ctx, { query, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, (tx) => listItems(tx, { ...query, scope: scopeOf(user) }));
      ctx.set('X-Total-Count', String(total));
      return rows;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/sites', tag,
    summary: 'Sites',
    description: 'By id, with type and attributes; `search` matches code or name. Users restricted to segments see the sites of their series only. The total is in `X-Total-Count`.',
    query: s.listQuery,
    responses: { 200: { description: 'sites', schema: { type: 'array', items: s.siteSchema } }, ...errors(400) },
    handler: async (ctx, { query, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, (tx) => listSites(tx, { ...query, scope: scopeOf(user) }));
      ctx.set('X-Total-Count', String(total));
      return rows;
    },
  });

  defineRoute(table, {
    method: 'patch', path: '/api/items/{item_id}/image', tag, permission: 'admin',
    summary: "Set or remove an item's image",
    description: 'Admins only. `image_url` is an http(s) URL (or a path on this host); null removes it. The data cache is updated at once.',
    params: s.itemIdParams, body: s.imageBody, audit: { entityType: 'item', action: 'update_image' },
    responses: { 200: { description: 'the item', schema: s.itemSchema }, ...errors(400, 403, 404) },
    handler: async (ctx, { params, body, user }) => {
      const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const old = await getItem(tx, params.item_id);
        if (!old) throw notFound(`Item ${params.item_id} not found`);
        await setItemImage(tx, params.item_id, body.image_url);
        return { old, row: (await getItem(tx, params.item_id))! };
      });
      const cached = ctx.deps.cache.get(user.accountId)?.items.get(params.item_id);
      if (cached) cached.image_url = body.image_url;
      ctx.state.audit = { ...ctx.state.audit, entityId: params.item_id, oldValue: { image_url: old.image_url }, newValue: { image_url: row.image_url } };
      return row;
    },
  });
}
