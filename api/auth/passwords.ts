import bcrypt from 'bcrypt';

const ROUNDS = Number(process.env.BCRYPT_ROUNDS ?? 10);
// Compared against when the e-mail is unknown, so a wrong e-mail costs the same time as a wrong password.
const DUMMY_HASH = bcrypt.hashSync('dummy-password-for-timing', ROUNDS);

export const hashPassword = (password: string): Promise<string> => bcrypt.hash(password, ROUNDS);

export async function checkPassword(password: string, hash: string | null | undefined): Promise<boolean> {
  if (!hash) {
    await bcrypt.compare(password, DUMMY_HASH);
    return false;
  }
  return bcrypt.compare(password, hash);
}

/** Password rules (the spec leaves them open): 8 to 128 characters, not only spaces. */
export const passwordSchema = { type: 'string', minLength: 8, maxLength: 128, pattern: '\\S' } as const;
