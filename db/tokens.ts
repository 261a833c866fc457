import { sql, type Db } from './pool';

/** Insert-or-ignore: logging out twice is not an error. */
export async function revokeToken(db: Db, jti: string, accountId: string | null, expiresAtEpoch: number): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO master.revoked_tokens (jti, account_id, expires_at)
    VALUES (${jti}::uuid, ${accountId}::uuid, to_timestamp(${expiresAtEpoch}))
    ON CONFLICT (jti) DO NOTHING`);
}

export async function isTokenRevoked(db: Db, jti: string): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM master.revoked_tokens WHERE jti = ${jti}::uuid`);
}

/** Revocations of tokens that have expired anyway no longer matter. */
export async function purgeExpiredRevocations(db: Db): Promise<number> {
  const r = await db.query(sql.unsafe`DELETE FROM master.revoked_tokens WHERE expires_at < now() - interval '1 day'`);
  return r.rowCount;
}
