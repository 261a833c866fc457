import { passwordSchema } from '../../auth/passwords';
import { int4, nullable, obj, out } from '../schemas';
import { MAX_CONFIG_IDS } from '../scenarios/schemas';
import type { JsonSchema } from '../validation';

const uuid = { type: 'string', format: 'uuid' };
const email = { type: 'string', format: 'email', maxLength: 254 };
const segmentIds = { type: 'array', items: int4(1), uniqueItems: true, maxItems: MAX_CONFIG_IDS };

export const userSchema: JsonSchema = out(
  {
    id: { type: 'string', description: 'tenant user id, or `superadmin:<n>` for a superadmin' },
    email: { type: 'string' },
    name: { type: 'string' },
    role: { type: 'string', enum: ['admin', 'user', 'superadmin'] },
    account_id: { type: 'string' },
    account_name: { type: 'string' },
    auth_provider: { type: 'string', enum: ['local', 'microsoft', 'google'] },
    is_superadmin: { type: 'boolean' },
    can_run_process: { type: 'boolean' },
    can_create_override: { type: 'boolean' },
    allowed_segments: { type: 'array', items: { type: 'integer' } },
    allowed_segments_edit: { type: 'array', items: { type: 'integer' } },
  },
  ['id', 'email', 'name', 'role', 'account_id', 'account_name'],
);

export const tenantUserSchema: JsonSchema = out(
  {
    id: { type: 'integer' },
    email: { type: 'string' },
    name: { type: 'string' },
    role: { type: 'string', enum: ['admin', 'user'] },
    auth_provider: { type: 'string', enum: ['local', 'microsoft', 'google'] },
    is_active: { type: 'boolean' },
    can_run_process: { type: 'boolean' },
    can_create_override: { type: 'boolean' },
    allowed_segments: { type: 'array', items: { type: 'integer' } },
    allowed_segments_edit: { type: 'array', items: { type: 'integer' } },
    account_id: { type: 'string' },
    account_name: { type: 'string' },
    last_login_at: nullable({ type: 'string' }),
    created_at: { type: 'string' },
  },
  ['id', 'email', 'name', 'role', 'auth_provider', 'is_active', 'can_run_process', 'can_create_override'],
);

const accountList = { type: 'array', items: out({ id: { type: 'string' }, name: { type: 'string' } }) };

export const tokenResponse: JsonSchema = {
  oneOf: [
    out({ access_token: { type: 'string' }, token_type: { type: 'string', const: 'bearer' }, expires_in: { type: 'integer' }, user: userSchema }),
    out({ status: { type: 'string', const: 'select_account' }, accounts: accountList }),
  ],
};

export const probeQuery = obj({ email }, ['email']);
export const providersResponse = out({
  providers: {
    type: 'array',
    items: out({
      id: { type: 'string', enum: ['microsoft', 'google'] }, label: { type: 'string' }, authorize_url: { type: 'string', format: 'uri' },
      client_id: { type: 'string' }, response_type: { type: 'string', enum: ['token', 'id_token'] }, scope: { type: 'string' },
    }),
  },
});
export const probeResponse = out({ accounts: accountList });

export const loginBody = obj({ email, password: { type: 'string', minLength: 1, maxLength: 1024 }, account_id: uuid }, ['email', 'password']);
export const microsoftBody = obj({ access_token: { type: 'string', minLength: 1, maxLength: 20000 }, account_id: uuid }, ['access_token']);
export const googleBody = obj({ credential: { type: 'string', minLength: 1, maxLength: 20000 }, account_id: uuid }, ['credential']);
export const switchBody = obj({ account_id: uuid }, ['account_id']);

const userFields = {
  email,
  name: { type: 'string', minLength: 1, maxLength: 200 },
  password: passwordSchema,
  role: { type: 'string', enum: ['admin', 'user'] },
  auth_provider: { type: 'string', enum: ['local', 'microsoft', 'google'], description: 'local (default) signs in with a password; microsoft and google sign in through the provider and take no password' },
  can_run_process: { type: 'boolean' },
  can_create_override: { type: 'boolean' },
  allowed_segments: segmentIds,
  allowed_segments_edit: segmentIds,
};
export const createUserBody = obj(
  { ...userFields, role: { ...userFields.role, default: 'user' }, can_run_process: { type: 'boolean', default: false }, can_create_override: { type: 'boolean', default: false } },
  ['email', 'name'],
  {
    // a local user needs a password, a provider's user takes none: stated here, a generated client sends what is taken
    if: { required: ['auth_provider'], properties: { auth_provider: { not: { const: 'local' } } } },
    then: { properties: { password: false } },
    else: { required: ['password'] },
  },
);
export const updateUserBody = obj({ ...userFields, is_active: { type: 'boolean', description: 'true reactivates a deactivated user' } }, [], { minProperties: 1 });

export const changePasswordBody = obj(
  {
    current_password: { type: 'string', minLength: 1, maxLength: 1024 },
    old_password: { type: 'string', minLength: 1, maxLength: 1024, description: 'alias of current_password' },
    new_password: passwordSchema,
  },
  ['new_password'],
);
