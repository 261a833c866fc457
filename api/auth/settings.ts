import { getMasterParameter, syncMasterDefaults } from '../../db/parameters';
import type { Db } from '../../db/pool';
import { PLACEHOLDER_JWT_SECRET } from '../../domain/parameters/catalogue';

/**
 * The auth parameter set (jwt_secret, token_expiry_minutes) lives in master.parameters. It is read on every token
 * check, so it is cached briefly; `invalidate()` after an update makes this replica see the change at once.
 */
export class AuthSettings {
  private cached?: { secret: string; expiryMinutes: number; at: number };

  constructor(
    private readonly db: Db,
    private readonly ttlMs = 15000,
  ) {}

  /** First boot: seed the auth set, taking JWT_SECRET from the environment when given. */
  async ensureDefaults(jwtSecretFromEnv?: string): Promise<void> {
    await syncMasterDefaults(this.db, jwtSecretFromEnv ? { 'auth.jwt_secret': jwtSecretFromEnv } : {});
  }

  private async load() {
    if (this.cached && Date.now() - this.cached.at < this.ttlMs) return this.cached;
    const secret = (await getMasterParameter(this.db, 'auth', 'jwt_secret')) as string | undefined;
    const expiry = (await getMasterParameter(this.db, 'auth', 'token_expiry_minutes')) as number | undefined;
    this.cached = { secret: secret ?? PLACEHOLDER_JWT_SECRET, expiryMinutes: expiry ?? 480, at: Date.now() };
    return this.cached;
  }

  async secret(): Promise<string> {
    return (await this.load()).secret;
  }

  async expiryMinutes(): Promise<number> {
    return (await this.load()).expiryMinutes;
  }

  async usesPlaceholder(): Promise<boolean> {
    return (await this.secret()) === PLACEHOLDER_JWT_SECRET;
  }

  invalidate(): void {
    this.cached = undefined;
  }
}
