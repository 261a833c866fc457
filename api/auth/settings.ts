import { createSecretKey, type KeyObject } from 'node:crypto';
import { getMasterParameter, syncMasterDefaults } from '../../db/parameters';
import type { Db } from '../../db/pool';
import { PLACEHOLDER_JWT_SECRET } from '../../domain/parameters/catalogue';

/**
 * The auth parameter set (jwt_secret, token_expiry_minutes) lives in master.parameters. It is read on every token
 * check, so it is cached briefly; `invalidate()` after an update makes this replica see the change at once.
 */
export class AuthSettings {
  private cached?: { secret: string; expiryMinutes: number; at: number };
  private key?: { secret: string; key: KeyObject };

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

  /**
   * The secret as a KeyObject, made once per secret: given a string, jsonwebtoken 9 first tries it as a PEM public key
   * and builds a secret key from it after that throws, on every verification (createPublicKey was a tenth of the
   * API's CPU time in a profile of npm run bench:api).
   */
  async secretKey(): Promise<KeyObject> {
    const secret = await this.secret();
    if (this.key?.secret !== secret) this.key = { secret, key: createSecretKey(Buffer.from(secret)) };
    return this.key.key;
  }

  /**
   * The signing key without a wait, while the cached secret is fresh (undefined once it is due for a re-read): what
   * every authenticated request asks for, so it costs no promise when nothing is to be read.
   */
  currentKey(): KeyObject | undefined {
    const c = this.cached;
    if (!c || Date.now() - c.at >= this.ttlMs || this.key?.secret !== c.secret) return undefined;
    return this.key.key;
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
