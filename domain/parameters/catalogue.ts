/**
 * The global defaults behind `/api/config` and the parameters table. A key that is not here cannot be set, so a
 * typo in `/api/config/update` is a 400, not a silently stored value that nothing reads.
 */
export interface ParameterDef {
  default: unknown;
  schema: Record<string, unknown>;
  description: string;
  secret?: boolean;
}

export type Section = Record<string, ParameterDef>;

export const PLACEHOLDER_JWT_SECRET = 'change-me-weak-placeholder-secret';

/** Platform-wide sections, stored in master.parameters and editable by a superadmin only. */
export const MASTER_SECTIONS: Record<string, Section> = {
  auth: {
    jwt_secret: {
      default: PLACEHOLDER_JWT_SECRET,
      schema: { type: 'string', minLength: 32 },
      description: 'HS256 signing secret of access tokens; at least 32 bytes. Changing it signs everyone out.',
      secret: true,
    },
    token_expiry_minutes: {
      default: 480,
      schema: { type: 'integer', minimum: 5, maximum: 43200 },
      description: 'Lifetime of access tokens in minutes.',
    },
  },
};

/** Per-tenant sections, stored in the tenant's parameters table and editable by the tenant's admins. */
export const TENANT_SECTIONS: Record<string, Section> = {
  pipeline: {
    n_workers: { default: 2, schema: { type: 'integer', minimum: 1, maximum: 64 }, description: 'Parallel chunk activities per step.' },
    chunk_size: { default: 500, schema: { type: 'integer', minimum: 1, maximum: 100000 }, description: 'Series per chunk activity.' },
    stale_job_minutes: { default: 30, schema: { type: 'integer', minimum: 1, maximum: 10080 }, description: 'A running job without heartbeat for this long is reset to failed.' },
  },
  cache: {
    load_wait_ms: { default: 2000, schema: { type: 'integer', minimum: 0, maximum: 60000 }, description: 'How long a request waits for a loading cache before answering 503.' },
  },
  llm: {
    base_url: { default: '', schema: { type: 'string' }, description: 'OpenAI-compatible endpoint; empty means no language model (deterministic fallbacks are used).' },
    model: { default: 'gpt-4o-mini', schema: { type: 'string', minLength: 1 }, description: 'Model name sent to the endpoint.' },
    api_key: { default: '', schema: { type: 'string' }, description: 'API key of the endpoint.', secret: true },
  },
  planning: {
    horizon_weeks: { default: 52, schema: { type: 'integer', minimum: 1, maximum: 260 }, description: 'Supply and forecast horizon in weeks.' },
    week_start: { default: 'monday', schema: { type: 'string', enum: ['monday'] }, description: 'Weeks start on Monday.' },
  },
};

const SECRET_NAME = /(password|secret|api_key|apikey|private_key|credential)/i;

export function isSecretKey(section: Record<string, ParameterDef> | undefined, key: string): boolean {
  return Boolean(section?.[key]?.secret) || SECRET_NAME.test(key);
}

export function defaultsOf(sections: Record<string, Section>): Array<{ parameter_type: string; key: string; value: unknown }> {
  return Object.entries(sections).flatMap(([type, defs]) =>
    Object.entries(defs).map(([key, def]) => ({ parameter_type: type, key, value: def.default })),
  );
}
