import { hash } from '@node-rs/argon2';
import { describe, expect, it } from 'vitest';
import {
  generatePassword,
  hashPassword,
  needsRehash,
  passwordProblem,
  verifyAgainstNothing,
  verifyPassword,
} from '../../src/auth/passwords.ts';

describe('password policy', () => {
  it.each([
    ['a long passphrase', 'correct horse battery staple', null],
    ['15 characters exactly', 'abcdefghijklmn1', null],
    ['14 characters', 'abcdefghijklm1', 'must be at least 15 characters'],
    ['15 code points of emoji (30 UTF-16 units) count as 15', '🔑'.repeat(14) + 'x', null],
    ['a common password', 'qwertyuiop12345', 'is one of the most common passwords'],
    ['a common password in capitals', 'QWERTYUIOP12345', 'is one of the most common passwords'],
    ['one repeated character', 'aaaaaaaaaaaaaaaaaaaa', 'must not repeat a single character'],
    ['257 characters', 'ab'.repeat(128) + 'c', 'must be at most 256 characters'],
  ])('%s: %s', async (_name, password, problem) => {
    expect(await passwordProblem(password)).toBe(problem);
  });

  it('refuses the account email and its local part', async () => {
    expect(await passwordProblem('Longname.Person@example.com', 'longname.person@example.com')).toBe(
      'must not be the email address',
    );
    expect(await passwordProblem('longname.person', 'longname.person@example.com')).toMatch(/at least|email/);
    expect(await passwordProblem('longname.person.x', 'longname.person.x@example.com')).toBe(
      'must not be the email address',
    );
  });

  it('accepts the passwords it generates', async () => {
    for (let i = 0; i < 20; i++) expect(await passwordProblem(generatePassword())).toBeNull();
  });
});

describe('password hashing', () => {
  it('hashes with argon2id (64 MiB, 3 passes), salted, and verifies only the right password', async () => {
    const [a, b] = await Promise.all([
      hashPassword('the same password!'),
      hashPassword('the same password!'),
    ]);
    expect(a).toMatch(/^\$argon2id\$v=19\$m=65536,t=3,p=1\$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword(a, 'the same password!')).toBe(true);
    expect(await verifyPassword(a, 'the same password?')).toBe(false);
    expect(await verifyPassword('not a hash', 'the same password!')).toBe(false);
    expect(await verifyAgainstNothing('the same password!')).toBe(false);
  });

  it('treats canonically equal Unicode as the same password (NFKC)', async () => {
    const composed = 'Caf\u00e9 au lait, s\u2019il vous pla\u00eet';
    const decomposed = composed.normalize('NFD');
    expect(decomposed).not.toBe(composed);
    expect(await verifyPassword(await hashPassword(composed), decomposed)).toBe(true);
  });

  it("asks for a rehash of a hash made with other parameters than today's", async () => {
    expect(needsRehash(await hashPassword('x'.repeat(15) + 'y'))).toBe(false);
    const weaker = await hash('x'.repeat(15) + 'y', { memoryCost: 19456, timeCost: 2, parallelism: 1 });
    expect(needsRehash(weaker)).toBe(true);
    expect(needsRehash('garbage')).toBe(true);
  });
});
