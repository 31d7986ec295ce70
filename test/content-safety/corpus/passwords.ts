import { examplesOf, type Positive } from './helpers.ts';

const password = examplesOf('password');

export const PASSWORDS: readonly Positive[] = [
  password('password: ', 'hunter22'),
  password('Password=', 'Tr0ub4dor&3'),
  password('PASSWORD : ', 'correcthorse', ' please keep it'),
  password('passwd=', 's3cr3t!'),
  password('pwd: ', 'qwerty123'),
  password('пароль: ', 'qwerty'),
  password('Пароль=', '12345678'),
  password('мой ПАРОЛЬ: ', 'Маша1990', ' не работает'),
  password('login: ivan, password: ', 'ivan1990'),
  password('db_password=', 'Zx9!kLm2'),
  password('root:', 'toor', '@db01'),
  password('admin:', 'Secr3t', '@localhost'),
  password('ssh deploy:', 'p4ssw0rd', '@build-server'),
  password('ｐａｓｓｗｏｒｄ：', 'ｈｕｎｔｅｒ２'),
  password('пароль\u200B: ', 'qwerty12'),
  password('password:\t', 'letmein1'),
  password('user=ivan pwd=', 'Qwe123!!'),
  password('Логин: maria, пароль: ', 'Kotik_2020'),
  password('new password = ', 'correct-horse-battery'),
];
