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
  ])('finds the value in %j', (text, value) => {
    const found = findPassword(text);
    expect(found?.secret).toBe(value);
    expect(found && text.slice(found.start, found.end)).toBe(value);
  });

  it.each([
    'password: abc',
    'password is hunter22',
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
});
