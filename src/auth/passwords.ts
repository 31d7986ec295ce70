import { randomBytes } from 'node:crypto';
import { hash, type Options, parseOptions, verify } from '@node-rs/argon2';

// argon2id with 64 MiB and 3 passes (RFC 9106's second recommendation, one lane); decision 012 says
// what one verification costs.
// The binding's default algorithm is argon2id; its enum is a const enum, out of reach here.
const ARGON2ID = 2;
export const PASSWORD_HASH_OPTIONS = {
  memoryCost: 64 * 1024,
  timeCost: 3,
  parallelism: 1,
} as const satisfies Options;

// NIST SP 800-63B-4: at least 15 characters for a password that is the only factor; accept long ones.
export const MIN_PASSWORD_LENGTH = 15;
export const MAX_PASSWORD_LENGTH = 256;

// Unicode passwords are compared after NFKC, so the same characters typed on two keyboards match.
const normalise = (password: string) => password.normalize('NFKC');
const codePoints = (text: string) => Array.from(text).length;

let commonPasswords: Promise<ReadonlySet<string>> | undefined;

/** zxcvbn's list of the ~49,000 most common passwords, loaded on first use. */
function common(): Promise<ReadonlySet<string>> {
  commonPasswords ??= import('@zxcvbn-ts/language-common').then(
    ({ dictionary }) => new Set(dictionary['passwords-common'].map((p) => p.toLowerCase())),
  );
  return commonPasswords;
}

/**
 * Why a new password is refused, or null when it is acceptable: too short or too long, one of the most
 * common passwords (any case), the account's own email or its local part, or one character repeated.
 */
export async function passwordProblem(password: string, email?: string): Promise<string | null> {
  const candidate = normalise(password);
  const length = codePoints(candidate);
  if (length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters`;
  const lower = candidate.toLowerCase();
  if ((await common()).has(lower)) return 'is one of the most common passwords';
  if (email !== undefined) {
    const address = email.toLowerCase();
    if (lower === address || lower === address.split('@')[0]) return 'must not be the email address';
  }
  if (new Set(lower).size === 1) return 'must not repeat a single character';
  return null;
}

export function hashPassword(password: string): Promise<string> {
  return hash(normalise(password), PASSWORD_HASH_OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, normalise(password));
  } catch {
    // A malformed stored hash verifies nothing.
    return false;
  }
}

/** True when a stored hash was made with other parameters than today's, so a login should replace it. */
export function needsRehash(passwordHash: string): boolean {
  try {
    const used = parseOptions(passwordHash);
    return (
      (used.algorithm as number) !== ARGON2ID ||
      used.memoryCost !== PASSWORD_HASH_OPTIONS.memoryCost ||
      used.timeCost !== PASSWORD_HASH_OPTIONS.timeCost ||
      used.parallelism !== PASSWORD_HASH_OPTIONS.parallelism
    );
  } catch {
    return true;
  }
}

let dummy: Promise<string> | undefined;

/**
 * Spends the same work as a real verification, for a login whose email matches no active account, so
 * the response time does not tell which emails exist.
 */
export async function verifyAgainstNothing(password: string): Promise<false> {
  dummy ??= hashPassword(randomBytes(24).toString('base64url'));
  await verifyPassword(await dummy, password);
  return false;
}

/** A random password for a generated account: 24 characters of base64url (144 bits). */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
