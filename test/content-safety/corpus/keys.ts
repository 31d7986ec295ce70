import { BASE58, base58Check, fromAlphabet, examplesOf, random, type Positive } from './helpers.ts';

const key = examplesOf('private_key');
const pem = (label: string, body: string): string =>
  `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`;
const BODY =
  'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK';
const HEX = '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
const next = random(58);

/** A WIF for 32 bytes of `fill`: uncompressed starts with 5, compressed with K or L. */
const wif = (fill: number, compressed: boolean): string =>
  base58Check(Uint8Array.from([0x80, ...new Uint8Array(32).fill(fill), ...(compressed ? [0x01] : [])]));
const extended = (prefix: string): string => `${prefix}${fromAlphabet(next, BASE58, 107)}`;

export const PRIVATE_KEYS: readonly Positive[] = [
  key('here is my key\n', pem('RSA PRIVATE KEY', BODY), '\nwhy does it fail?'),
  key('', pem('PRIVATE KEY', BODY)),
  key('', pem('EC PRIVATE KEY', 'MHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49')),
  key('', pem('OPENSSH PRIVATE KEY', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz')),
  key(
    '',
    pem('RSA PRIVATE KEY', `Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\n${BODY}`),
  ),
  key('', pem('ENCRYPTED PRIVATE KEY', BODY)),
  key('', pem('PGP PRIVATE KEY BLOCK', `Version: GnuPG v2\n\n${BODY}`)),
  key('cut off: ', '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcw'),
  key('private key: ', `0x${HEX}`),
  key('priv: ', HEX),
  key('pk=', HEX),
  key('my metamask export ', HEX, ' is it safe?'),
  key('', HEX, ' (secret, do not share)'),
  key('приватный ключ: ', HEX),
  key('закрытый ключ кошелька ', HEX.toUpperCase()),
  key('PK ', 'ｆｆ'.repeat(32)),
  key('', '5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ'),
  key('wif ', 'KwdMAjGmerYanjeui5SHS7JkmpZvVipYvB2LJGU1ZxJwYvP98617'),
  key('', wif(0xcc, true)),
  key('', wif(0x42, false)),
  key('', wif(0x11, true)),
  key(
    'master: ',
    'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi',
  ),
  key('', extended('tprv')),
  key('', extended('yprv')),
  key('electrum ', extended('zprv')),
];

const api = examplesOf('api_key');
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const alnum = (count: number): string => fromAlphabet(next, ALNUM, count);
const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

export const API_KEYS: readonly Positive[] = [
  api('aws key ', 'AKIAIOSFODNN7EXAMPLE'),
  api('', 'ASIAY34FZKBOKMUTVV7A', ' expires soon'),
  api('token ', `ghp_${alnum(36)}`),
  api('', `gho_${alnum(36)}`),
  api('', `ghs_${alnum(36)}`),
  api('', `github_pat_11${alnum(20)}_${alnum(59)}`),
  api('maps key ', `AIza${alnum(20)}-${alnum(14)}`),
  api('', `xoxb-1234567890-2345678901234-${alnum(24)}`),
  api('slack ', `xoxp-${alnum(12)}-${alnum(30)}`),
  api('', `xoxa-2-${alnum(40)}`),
  api('stripe ', `sk_live_${alnum(24)}`),
  api('', `rk_live_${alnum(24)}`),
  api('bot token ', `123456789:AA${alnum(33)}`),
  api('токен бота ', `5012345678:AAF${alnum(20)}_${alnum(11)}`),
  api('Authorization: Bearer ', JWT),
  api('unsigned ', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0In0.'),
  api('fullwidth ', 'ＡＫＩＡＩＯＳＦＯＤＮＮ７ＥＸＡＭＰＬＥ'),
  api('zero width ', `gh\u200Bp_${alnum(36)}`),
];
