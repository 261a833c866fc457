import { RuleError, type Rule } from '../../../domain/segments/rules';
import { listAbcConfigs } from '../../../db/abc';
import { withTenant, type Tx } from '../../../db/pool';
import {
  assignMembers, canEditSegment, compileRules, deleteSegment, fieldCatalogue, findSegmentByName, getSegment, insertSegment, listMembers,
  listSegments, lockSegments, previewRules, segmentDetails, segmentsOfSeries, segmentUsage, seriesScope, siteVocabulary, unlinkSegment,
  updateSegment, visibleSegmentIds, type Catalogue, type SegmentRow,
} from '../../../db/segments';
import type { AppContext, AuthUser } from '../../context';
import { badRequest, conflict } from '../../errors';
import { llmSettings } from '../../llm';
import { defineRoute, type RouteTable } from '../define';
import { errors } from '../schemas';
import { editableSegment, requireUnrestrictedEdit, viewableSegment, visibleSeries } from './access';
import { parseNaturalLanguage } from './nl';
import * as s from './schemas';

export const segmentView = (r: SegmentRow, user: AuthUser) => ({
  id: r.id, name: r.name, description: r.description, rules: r.rules, member_count: r.member_count, assigned_at: r.assigned_at,
  can_edit: canEditSegment(user, r.id), created_by: r.created_by, created_at: r.created_at, updated_at: r.updated_at,
});

/** Compiles rules against the tenant's catalogue; a bad rule is a 400 naming its index. */
function compile(rules: Rule[], cat: Catalogue, prefix = 'body.rules') {
  try {
    return compileRules(rules, cat, prefix);
  } catch (err) {
    if (err instanceof RuleError) throw badRequest(err.message);
    throw err;
  }
}

async function checkNameFree(tx: Tx, name: string, exceptId?: number) {
  const clash = await findSegmentByName(tx, name, exceptId);
  if (clash) throw conflict(`body.name: segment ${clash.id} is already named '${clash.name}'`);
}

const setAudit = (ctx: AppContext, note: { entityId?: number | null; oldValue?: unknown; newValue?: unknown }) => {
  ctx.state.audit = { ...ctx.state.audit, ...note };
};

const names = (xs: Array<{ id: number; name: string }>) => xs.map((x) => `'${x.name}' (${x.id})`).join(', ');

export function registerSegmentRoutes(table: RouteTable): void {
  const tag = 'segments';
  const entityType = 'segment';

  defineRoute(table, {
    method: 'get', path: '/api/segments', tag,
    summary: 'Segments the caller may see',
    description: 'Ordered by id. Users with `allowed_segments` see those segments (and the ones they may edit) only.',
    responses: { 200: { description: 'segments', schema: { type: 'array', items: s.segmentSchema } } },
    handler: async (ctx, { user }) =>
      (await withTenant(ctx.deps.db, user.accountId, (tx) => listSegments(tx, visibleSegmentIds(user)))).map((r) => segmentView(r, user)),
  });

  defineRoute(table, {
    method: 'post', path: '/api/segments', tag, status: 201,
    summary: 'Create a segment',
    description: 'Names are unique ignoring case (409). Rules are validated against GET /api/segments/fields (400 naming `body.rules[<i>]`). Membership is written by POST /api/segments/{segment_id}/assign. Users restricted to segments (a non-empty `allowed_segments` or `allowed_segments_edit`) cannot create segments (403).',
    body: s.createBody, audit: { entityType, action: 'create' },
    responses: { 201: { description: 'created segment', schema: s.segmentSchema }, ...errors(400, 403, 409) },
    handler: async (ctx, { body, user }) => {
      requireUnrestrictedEdit(user, 'create segments');
      const name = body.name.trim();
      const row = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockSegments(tx);
        await checkNameFree(tx, name);
        compile(body.rules, await fieldCatalogue(tx));
        const id = await insertSegment(tx, { name, description: body.description, rules: body.rules }, user.email);
        return (await getSegment(tx, id))!;
      });
      const view = segmentView(row, user);
      setAudit(ctx, { entityId: row.id, newValue: view });
      return view;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/segments/fields', tag,
    summary: 'Fields usable in segment rules',
    description:
      'Item and site columns, item and site attributes (the keys present in this tenant, typed by inspecting their values: all numbers → number, all booleans → boolean, all `YYYY-MM-DD` strings → date, else string), series statistics, one `abc:<configuration name>` field per ABC configuration and `best_method`. `operators` lists what applies to the type; `values` lists known values when there are at most 50.',
    responses: { 200: { description: 'fields', schema: { type: 'array', items: s.fieldSchema } } },
    handler: async (ctx, { user }) => (await withTenant(ctx.deps.db, user.accountId, fieldCatalogue)).fields,
  });

  defineRoute(table, {
    method: 'post', path: '/api/segments/parse-natural-language', tag,
    summary: 'Turn a description into segment rules',
    description:
      'With the tenant parameter `llm.base_url` set, the configured OpenAI-compatible model proposes the rules (chat completions, JSON answer); they are validated against the field list and a rule on an unknown field or with a bad value is a 400 naming it. Without a model, or when it cannot be reached (a warning says so), a deterministic parser understands common phrasing: "A items at site DC1 with intermittent demand", "items with unit price over 100", "lumpy or intermittent series at stores". Nothing is saved. A description from which no rule can be derived is a 400.',
    body: s.parseBody,
    responses: { 200: { description: 'rules', schema: s.parseResponse }, ...errors(400) },
    handler: async (ctx, { body, user }) => {
      const c = await withTenant(ctx.deps.db, user.accountId, async (tx) => ({
        cat: await fieldCatalogue(tx), sites: await siteVocabulary(tx), abc: await listAbcConfigs(tx), llm: await llmSettings(tx),
      }));
      return parseNaturalLanguage(body.description.trim(), { fields: c.cat.fields, sites: c.sites, abc: c.abc, llm: c.llm });
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/segments/by-uid/{unique_id}', tag,
    summary: 'Segments containing a series',
    description: 'Assigned membership, limited to the segments the caller may see. An unknown series is a 404; a series outside the caller\'s segments a 403.',
    params: s.uidParams,
    responses: { 200: { description: 'segments', schema: { type: 'array', items: s.segmentSchema } }, ...errors(400, 403, 404) },
    handler: async (ctx, { params, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const { itemId, siteId } = await visibleSeries(tx, user, params.unique_id);
        return (await segmentsOfSeries(tx, itemId, siteId, visibleSegmentIds(user))).map((r) => segmentView(r, user));
      }),
  });

  defineRoute(table, {
    method: 'get', path: '/api/segments/{segment_id}', tag,
    summary: 'One segment',
    params: s.segmentIdParams,
    responses: { 200: { description: 'segment', schema: s.segmentSchema }, ...errors(400, 403, 404) },
    handler: async (ctx, { params, user }) =>
      segmentView(await withTenant(ctx.deps.db, user.accountId, (tx) => viewableSegment(tx, user, params.segment_id)), user),
  });

  defineRoute(table, {
    method: 'put', path: '/api/segments/{segment_id}', tag,
    summary: 'Update a segment',
    description: 'Partial: the fields sent change; `rules` are replaced as a whole. Membership stays as last assigned until the next assign. Needs edit permission on the segment (403).',
    params: s.segmentIdParams, body: s.updateBody, audit: { entityType, action: 'update' },
    responses: { 200: { description: 'updated segment', schema: s.segmentSchema }, ...errors(400, 403, 404, 409) },
    handler: async (ctx, { params, body, user }) => {
      const name = body.name?.trim();
      const { old, row } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockSegments(tx);
        const old = await editableSegment(tx, user, params.segment_id);
        if (name !== undefined) await checkNameFree(tx, name, old.id);
        if (body.rules) compile(body.rules, await fieldCatalogue(tx));
        await updateSegment(tx, old.id, { name, description: body.description, rules: body.rules });
        return { old, row: (await getSegment(tx, old.id))! };
      });
      const view = segmentView(row, user);
      setAudit(ctx, { entityId: row.id, oldValue: segmentView(old, user), newValue: view });
      return view;
    },
  });

  defineRoute(table, {
    method: 'delete', path: '/api/segments/{segment_id}', tag,
    summary: 'Delete a segment',
    description:
      'A segment that scenario pipelines, parameter sets or process workflows use is a 409 naming them, unless `force=true`, which removes those links. Its membership goes with it. Users whose `allowed_segments` name it keep the id (it then matches nothing).',
    params: s.segmentIdParams, query: s.deleteQuery, audit: { entityType, action: 'delete' },
    responses: { 200: { description: 'deleted', schema: s.deleteResponse }, ...errors(400, 403, 404, 409) },
    handler: async (ctx, { params, query, user }) => {
      const { old, usage } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockSegments(tx);
        const old = await editableSegment(tx, user, params.segment_id);
        const usage = await segmentUsage(tx, old.id);
        const users = [
          usage.pipelines.length ? `scenario pipelines ${names(usage.pipelines)}` : '',
          usage.parameter_sets.length ? `parameter sets ${names(usage.parameter_sets)}` : '',
          usage.process_workflows.length ? `process workflows ${names(usage.process_workflows)}` : '',
        ].filter(Boolean);
        if (users.length && !query.force) {
          throw conflict(`Segment ${old.id} '${old.name}' is used by ${users.join(' and ')}; remove it from them first, or delete with force=true to unlink it`);
        }
        if (users.length) await unlinkSegment(tx, old.id);
        await deleteSegment(tx, old.id);
        return { old, usage };
      });
      const unlinked = {
        pipelines: usage.pipelines.map((p) => p.name), parameter_sets: usage.parameter_sets.map((p) => p.name), process_workflows: usage.process_workflows.map((p) => p.name),
      };
      setAudit(ctx, { entityId: old.id, oldValue: segmentView(old, user), newValue: { deleted: true, unlinked } });
      return { status: 'deleted', id: old.id, unlinked };
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/segments/{segment_id}/members', tag,
    summary: 'Series in a segment',
    description: 'Assigned membership, by item_id and site_id, limited to the series the caller may see; the total is in `X-Total-Count`.',
    params: s.segmentIdParams, query: s.pageQuery,
    responses: { 200: { description: 'members', schema: { type: 'array', items: s.memberSchema } }, ...errors(400, 403, 404) },
    handler: async (ctx, { params, query, user }) => {
      const { rows, total } = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await viewableSegment(tx, user, params.segment_id);
        return listMembers(tx, params.segment_id, seriesScope(user), query);
      });
      ctx.set('X-Total-Count', String(total));
      return rows;
    },
  });

  defineRoute(table, {
    method: 'get', path: '/api/segments/{segment_id}/details', tag,
    summary: 'Statistics of a segment',
    description: 'Over the assigned members the caller may see: series, item and site counts, total demand, total value (demand × unit price; 0 for items without price) and the class mix per ABC configuration.',
    params: s.segmentIdParams,
    responses: { 200: { description: 'statistics', schema: s.detailsResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { params, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        const seg = await viewableSegment(tx, user, params.segment_id);
        return { segment: segmentView(seg, user), ...(await segmentDetails(tx, seg.id, seriesScope(user))) };
      }),
  });

  defineRoute(table, {
    method: 'post', path: '/api/segments/{segment_id}/preview', tag,
    summary: 'Series matching rules, without saving',
    description:
      'Evaluates `rules` (or, when absent, the saved rules of the segment) over the current series and returns the count, demand totals and a page of matches; nothing is written. `segment_id` 0 previews an unsaved segment and then needs `rules`. Matches are limited to the series the caller may see.',
    params: s.previewParams, body: s.previewBody,
    responses: { 200: { description: 'matches', schema: s.previewResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { params, body, user }) =>
      withTenant(ctx.deps.db, user.accountId, async (tx) => {
        let rules: Rule[] | undefined = body.rules;
        if (params.segment_id !== 0) {
          const seg = await viewableSegment(tx, user, params.segment_id);
          rules ??= seg.rules;
        } else if (!rules) {
          throw badRequest('body.rules is required when segment_id is 0 (an unsaved segment has no rules of its own)');
        }
        const matcher = compile(rules, await fieldCatalogue(tx), body.rules ? 'body.rules' : 'rules');
        const r = await previewRules(tx, matcher, seriesScope(user), body);
        return { segment_id: params.segment_id, rules, ...r };
      }),
  });

  defineRoute(table, {
    method: 'post', path: '/api/segments/{segment_id}/assign', tag,
    summary: 'Write the series matching the rules as members',
    description: 'Evaluates the saved rules over all series of the tenant (membership does not depend on who assigns) and replaces the membership. Needs edit permission on the segment. A saved rule that is no longer valid (e.g. its ABC configuration was deleted) is a 400 naming `rules[<i>]`.',
    params: s.segmentIdParams, audit: { entityType, action: 'assign' },
    responses: { 200: { description: 'membership written', schema: s.assignResponse }, ...errors(400, 403, 404) },
    handler: async (ctx, { params, user }) => {
      const out = await withTenant(ctx.deps.db, user.accountId, async (tx) => {
        await lockSegments(tx);
        const seg = await editableSegment(tx, user, params.segment_id);
        const r = await assignMembers(tx, seg.id, compile(seg.rules, await fieldCatalogue(tx), 'rules'));
        const after = (await getSegment(tx, seg.id))!;
        return { segment_id: seg.id, ...r, assigned_at: after.assigned_at! };
      });
      setAudit(ctx, { entityId: params.segment_id, newValue: out });
      return out;
    },
  });
}

