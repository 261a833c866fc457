/**
 * What the API checks on every authenticated request, in one statement: the token's revocation, the account, the
 * user (or superadmin) as stored now, and the tenant's data version (migration 011) that tells the API whether its
 * in-memory reads are current. One round trip instead of six (revocation, account, BEGIN, search_path, user, COMMIT):
 * the statement names the tenant schema itself, derived from the account id of a verified token (tenantSchemaName
 * accepts nothing else), so it needs no transaction to set search_path; and it is a prepared statement
 * (db/preparedReads.ts).
 *
 * Requests of one tenant share that round trip. A request joins the next statement of its tenant, which leaves as
 * soon as fewer than MAX_IN_FLIGHT are in flight (with none in flight, once the requests read in the same turn of the
 * event loop have joined). A statement therefore always starts after every request it answers arrived, so each still
 * sees every commit made before it came (a revocation, a deactivation, a permission change, a step's results),
 * exactly as with a statement of its own; under load one statement answers several requests. With a statement per
 * request, that round trip was most of the cost of a small request in bench:api: the statement's work in Node and in
 * PostgreSQL, and the `writev` and wake-ups of both processes on the machine's two CPUs.
 */
import { tenantSchemaName } from './pool';
import { preparedQuery } from './preparedReads';
import { isTokenRevoked } from './tokens';
import type { Db } from './pool';

export interface AuthLookup {
  revoked: boolean;
  /** null: no active account with this id */
  account_name: string | null;
  /** null: the tenant has no data_version (not migrated yet) or the account is gone */
  data_version: number | null;
  /** the tenant's plan version (migration 033): whether the work lists the API holds (api/planReads.ts) are current */
  plan_version: number | null;
  user: {
    id: number;
    email: string;
    name: string;
    role: 'admin' | 'user';
    auth_provider: 'local' | 'microsoft' | 'google';
    is_active: boolean;
    can_run_process: boolean;
    can_create_override: boolean;
    allowed_segments: number[];
    allowed_segments_edit: number[];
  } | null;
  superadmin: { id: number; email: string; name: string } | null;
}

export interface AuthQuestion {
  accountId: string;
  jti: string;
  userId?: number;
  superadminId?: number;
}

/** A token id as PostgreSQL's uuid type reads it and crypto.randomUUID writes it; anything else would fail the cast. */
export const TOKEN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The columns of both statements: plain columns, which cost PostgreSQL less than building JSON objects of them. */
const COLUMNS = `
    a.name AS account_name, v.version::float8 AS data_version, v.plan_version::float8 AS plan_version,
    u.id AS user_id, u.email AS user_email, u.name AS user_name, u.role AS user_role, u.auth_provider AS user_auth_provider,
    u.is_active AS user_is_active, u.can_run_process AS user_can_run_process, u.can_create_override AS user_can_create_override,
    u.allowed_segments AS user_allowed_segments, u.allowed_segments_edit AS user_allowed_segments_edit,
    sa.id AS sa_id, sa.email AS sa_email, sa.name AS sa_name`;

const joins = (schema: string, userId: string, superadminId: string) => `
  LEFT JOIN master.accounts a ON a.id = $2::uuid AND a.is_active
  LEFT JOIN "${schema}".data_version v ON a.id IS NOT NULL
  LEFT JOIN "${schema}".users u ON a.id IS NOT NULL AND u.id = ${userId}
  LEFT JOIN master.superadmins sa ON a.id IS NOT NULL AND sa.id = ${superadminId} AND sa.is_active`;

/**
 * A batch whose requests all carry the same token (a screen's parallel requests, most of the time) asks with plain
 * parameters: unnest and its joins cost PostgreSQL about as much again as the rest of the statement.
 */
const oneStatement = (schema: string) => `
  SELECT 1 AS i, EXISTS (SELECT 1 FROM master.revoked_tokens r WHERE r.jti = $1::uuid) AS revoked, ${COLUMNS}
  FROM (SELECT 1) one ${joins(schema, '$3::int', '$4::int')}`;

/** One row per distinct (jti, user, superadmin) of the batch, in the order of the arrays (`i`, 1-based). */
const manyStatement = (schema: string) => `
  SELECT q.i::int AS i, EXISTS (SELECT 1 FROM master.revoked_tokens r WHERE r.jti = q.jti) AS revoked, ${COLUMNS}
  FROM unnest($1::uuid[], $3::int[], $4::int[]) WITH ORDINALITY AS q(jti, user_id, superadmin_id, i) ${joins(schema, 'q.user_id', 'q.superadmin_id')}`;

interface Row {
  i: number;
  revoked: boolean;
  account_name: string | null;
  data_version: number | null;
  plan_version: number | null;
  user_id: number | null;
  user_email: string;
  user_name: string;
  user_role: 'admin' | 'user';
  user_auth_provider: 'local' | 'microsoft' | 'google';
  user_is_active: boolean;
  user_can_run_process: boolean;
  user_can_create_override: boolean;
  user_allowed_segments: number[];
  user_allowed_segments_edit: number[];
  sa_id: number | null;
  sa_email: string;
  sa_name: string;
}

const lookupOf = (r: Row): AuthLookup => ({
  revoked: r.revoked,
  account_name: r.account_name,
  data_version: r.data_version,
  plan_version: r.plan_version,
  user: r.user_id === null ? null : {
    id: r.user_id, email: r.user_email, name: r.user_name, role: r.user_role, auth_provider: r.user_auth_provider, is_active: r.user_is_active,
    can_run_process: r.user_can_run_process, can_create_override: r.user_can_create_override,
    allowed_segments: r.user_allowed_segments, allowed_segments_edit: r.user_allowed_segments_edit,
  },
  superadmin: r.sa_id === null ? null : { id: r.sa_id, email: r.sa_email, name: r.sa_name },
});

interface Waiter {
  /** the request's own pool, for the revocation check when the tenant's schema is gone */
  db: Db;
  q: AuthQuestion;
  resolve: (found: AuthLookup) => void;
  reject: (err: unknown) => void;
}

/** One tenant's statements in flight and the requests waiting for the next one. */
interface Lane {
  databaseUrl: string;
  schema: string;
  /** the account id as the schema names it, so that every request of the lane sends the same one */
  account: string;
  one: string;
  many: string;
  pending: Waiter[];
  inFlight: number;
  scheduled: boolean;
}

/**
 * Statements of one tenant in flight at once. With one, a request waited on average for more than one round trip and
 * the API sat idle a quarter of the time in bench:api; with two, one gathers its requests while PostgreSQL answers the
 * other. Batches stay 4–5 requests at 10 concurrent connections either way.
 */
const MAX_IN_FLIGHT = 2;

const lanes = new Map<string, Lane>();

function laneOf(databaseUrl: string, accountId: string): Lane {
  const schema = tenantSchemaName(accountId);
  const h = schema.slice(2);
  const account = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  return { databaseUrl, schema, account, one: oneStatement(schema), many: manyStatement(schema), pending: [], inFlight: 0, scheduled: false };
}

export function authLookup(db: Db, databaseUrl: string, q: AuthQuestion): Promise<AuthLookup> {
  if (!TOKEN_ID.test(q.jti)) return Promise.reject(new Error(`token id ${q.jti} is not a uuid`));
  const laneKey = `${databaseUrl}\n${q.accountId}`;
  let lane = lanes.get(laneKey);
  if (!lane) lanes.set(laneKey, (lane = laneOf(databaseUrl, q.accountId)));
  const l = lane;
  return new Promise<AuthLookup>((resolve, reject) => {
    l.pending.push({ db, q, resolve, reject });
    if (!l.scheduled) {
      l.scheduled = true;
      // the requests whose sockets were read in this same turn of the event loop join the statement
      setImmediate(() => {
        l.scheduled = false;
        pump(l);
      });
    }
  });
}

function pump(lane: Lane): void {
  if (lane.inFlight >= MAX_IN_FLIGHT || !lane.pending.length) return;
  const batch = lane.pending;
  lane.pending = [];
  lane.inFlight++;
  answer(lane, batch)
    .catch((err) => {
      for (const w of batch) w.reject(err);
    })
    .finally(() => {
      lane.inFlight--;
      // the requests that arrived meanwhile
      pump(lane);
    });
}

async function answer({ databaseUrl, schema, account, one, many }: Lane, batch: Waiter[]): Promise<void> {
  const index = new Map<string, number>();
  const jtis: string[] = [];
  const users: Array<number | null> = [];
  const superadmins: Array<number | null> = [];
  const rowOf = batch.map(({ q }) => {
    const k = `${q.jti}|${q.userId ?? ''}|${q.superadminId ?? ''}`;
    let i = index.get(k);
    if (i === undefined) {
      index.set(k, (i = jtis.length));
      jtis.push(q.jti);
      users.push(q.userId ?? null);
      superadmins.push(q.superadminId ?? null);
    }
    return i;
  });
  let rows: Row[];
  try {
    rows = jtis.length === 1
      ? await preparedQuery<Row>(databaseUrl, `auth_one_${schema}`, one, [jtis[0], account, users[0], superadmins[0]])
      : await preparedQuery<Row>(databaseUrl, `auth_many_${schema}`, many, [jtis, account, users, superadmins]);
  } catch (err) {
    // 42P01/3F000: the tenant's schema or tables went with its account; the token then names no account
    const code = (err as { code?: string }).code;
    if (code === '42P01' || code === '3F000') {
      await Promise.all(batch.map(async (w) => {
        try {
          w.resolve({ revoked: await isTokenRevoked(w.db, w.q.jti), account_name: null, data_version: null, plan_version: null, user: null, superadmin: null });
        } catch (e) {
          w.reject(e);
        }
      }));
    } else {
      for (const w of batch) w.reject(err);
    }
    return;
  }
  const byIndex: Array<AuthLookup | undefined> = [];
  for (const r of rows) byIndex[r.i - 1] = lookupOf(r);
  batch.forEach((w, n) => {
    const found = byIndex[rowOf[n]];
    if (found) w.resolve(found);
    else w.reject(new Error('auth lookup returned no row for a request'));
  });
}
