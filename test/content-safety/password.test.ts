import { describe, expect, it } from 'vitest';
import { findPassword } from '../../src/content-safety/dlp/password.ts';

describe('findPassword', () => {
  it.each([
    ['password: hunter22', 'hunter22'],
    ['PASSWD = s3cr3t!', 's3cr3t!'],
    ['Пароль:qwerty', 'qwerty'],
    ['ПАРОЛЬ= 1234', '1234'],
    ['pwd=Qwe123!!', 'Qwe123!!'],
    ['db_password=Zx9!kLm2', 'Zx9!kLm2'],
    ['root:toor@db01', 'toor'],
    ['ssh deploy:p4ss@10.0.0.1', 'p4ss'],
    ['password is hunter22', 'hunter22'],
    ['my password is sunshine.', 'sunshine'],
    ['pwd qwerty123', 'qwerty123'],
    ['pass: Tr0ub4dor', 'Tr0ub4dor'],
    ['the password for the admin panel: Zx9kLm22', 'Zx9kLm22'],
    ['my password is "correct horse battery"', 'correct horse battery'],
    ['мой пароль машенька', 'машенька'],
    ['пароль от вайфая 12345678', '12345678'],
    ['mi contraseña es gatito123', 'gatito123'],
    ['mein Passwort ist Sommer2024', 'Sommer2024'],
    ['mon mot de passe est soleil42', 'soleil42'],
    ['minha senha é flamengo10', 'flamengo10'],
    ['la mia password è gattino7', 'gattino7'],
    ['password: **hunter22**', 'hunter22'],
  ])('finds the value in %j', (text, value) => {
    const found = findPassword(text);
    expect(found?.secret).toBe(value);
    expect(found && text.slice(found.start, found.end)).toBe(value);
  });

  it.each([
    'password: abc',
    'passwords: many',
    'password: forgot',
    'пароль: забыл.',
    'password: ********',
    'pwd: /home/ivan',
    'the password must be long',
    '10:30@home',
    'мой логин ivan, пароль не скажу',
    'Сменил пароль:\nничего не помогло',
  ])('ignores %j', (text) => {
    expect(findPassword(text)).toBeNull();
  });

  it.each([
    ['a word describing it', 'my password is wrong'],
    ['an adverb or a participle', 'my password is expired.'],
    ['a word the sentence goes on after', 'the password is case sensitive'],
    ['a Russian verb', 'мой пароль украли'],
    ['a Spanish adjective', 'mi contraseña es incorrecta'],
    ['a weak label without a colon', 'pass the salt'],
    ['a weak label with a plain word', 'Boarding pass: printed'],
    ['a bare label with a plain word', 'password reset link expired'],
    ['a bare label with a short value', 'Password 2FA is on'],
    ['a modal verb after a colon', 'new password: must be 8+ characters'],
  ])('does not take %s for a password', (_name, text) => {
    expect(findPassword(text)).toBeNull();
  });

  it('gives the same secret whichever way the password is stated', () => {
    const secrets = [
      'password: hunter22',
      'my password is hunter22.',
      'pwd hunter22',
      'пароль — hunter22',
    ].map((text) => findPassword(text)?.secret);
    expect(new Set(secrets)).toEqual(new Set(['hunter22']));
  });
});
