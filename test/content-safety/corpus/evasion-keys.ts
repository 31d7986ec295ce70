import type { EvasionClass } from './evasions.ts';
import { examplesOf, fromAlphabet, random } from './helpers.ts';

const api = examplesOf('api_key');
const next = random(2077);
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = `${UPPER}${LOWER}${DIGITS}`;
const URL_SAFE = `${ALNUM}_-`;
const HEX = '0123456789abcdef';
const of = (alphabet: string, count: number): string => fromAlphabet(next, alphabet, count);
/** A body with each class of its alphabet present, as every real key of that length has. */
const mixed = (count: number): string => `A1b${of(ALNUM, count - 3)}`;
const chunks = (text: string, size: number, separator = ' '): string =>
  text.match(new RegExp(`.{1,${size}}`, 'gs'))?.join(separator) ?? text;

// AWS's documented example pair, and keys in AWS's base32 alphabet.
const AWS_ID = 'AKIAIOSFODNN7EXAMPLE';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const awsId = (prefix: string): string => `${prefix}${of('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 14)}Q7`;
const awsSecret = (): string => `Zq9/${of(`${ALNUM}/+`, 36)}`;

// Keys split by spaces (or a line break) so no single run looks like one.
const splitPositives = [
  api('', chunks(AWS_ID, 4)),
  api('key id ', 'AKIAIOSFODNN 7EXAMPLE'),
  api('', chunks(awsId('ASIA'), 4)),
  api('', chunks(awsId('AKIA'), 5, '  ')),
  api('', chunks(awsId('AKIA'), 4, '\n')),
  api('aws secret: ', chunks(AWS_SECRET, 5)),
  api('aws_secret_access_key = ', AWS_SECRET),
  api('AWS_SECRET_ACCESS_KEY=', awsSecret()),
  api('SecretAccessKey: ', chunks(awsSecret(), 8)),
  api('the pair is ', `${AWS_ID} ${AWS_SECRET}`),
  api('token ', `ghp_ ${chunks(mixed(36), 6)}`),
  api('', `gho_${chunks(mixed(36), 12)}`),
  api('stripe ', `sk_live_ ${chunks(mixed(24), 4)}`),
  api('', `rk_live_${chunks(mixed(99), 11)}`),
  api('maps key ', `AIza ${chunks(`Sy${mixed(33)}`, 7)}`),
  api('', `github_pat_${chunks(`11${mixed(20)}_${mixed(59)}`, 10)}`),
  api('openai ', `sk-${chunks(`${mixed(20)}T3BlbkFJ${mixed(20)}`, 8)}`),
  api('', `glpat-${chunks(`xY9${of(URL_SAFE, 17)}`, 5)}`),
  api('', `npm_ ${chunks(mixed(36), 9)}`),
];

// Vendor keys at their real lengths, for the vendors the rules now know.
const vendorPositives = [
  api('OPENAI_API_KEY=', `sk-${mixed(20)}T3BlbkFJ${mixed(20)}`),
  api('', `sk-proj-${of(URL_SAFE, 74)}T3BlbkFJ${of(URL_SAFE, 74)}`),
  api('', `sk-svcacct-${of(URL_SAFE, 58)}T3BlbkFJ${of(URL_SAFE, 58)}`),
  api('claude ', `sk-ant-api03-${of(URL_SAFE, 93)}AA`),
  api('', `sk-ant-admin01-${of(URL_SAFE, 93)}AA`),
  api('gitlab ', `glpat-${of(URL_SAFE, 20)}`),
  api('', `npm_${mixed(36)}`),
  api('hf ', `hf_${of(`${UPPER}${LOWER}`, 34)}`),
  api('', `xapp-1-A${of(`${UPPER}${DIGITS}`, 10)}-${of(DIGITS, 13)}-${of(HEX, 64)}`),
  api('', `xoxe.xoxp-1-${of(ALNUM, 163)}`),
  api('', `xoxe-1-${of(ALNUM, 146)}`),
  api('', `xoxp-${of(DIGITS, 12)}-${of(DIGITS, 13)}-${of(DIGITS, 13)}-${of(HEX, 32)}`),
  api('', `sk_live_51${mixed(97)}`),
  api('', `SG.${of(URL_SAFE, 22)}.${of(URL_SAFE, 43)}`),
  api('', `pypi-AgEIcHlwaS5vcmc${of(URL_SAFE, 60)}`),
  api('', `dop_v1_${of(HEX, 64)}`),
  api('', `shpat_${of(HEX, 32)}`),
  api('groq ', `gsk_${mixed(52)}`),
  api('', `pplx-${mixed(48)}`),
  api('discord bot ', `MT${of(ALNUM, 24)}.${of(URL_SAFE, 6)}.${of(URL_SAFE, 38)}`),
  api('', `ghr_${mixed(36)}`),
  api('', `ghu_${mixed(36)}`),
  api('ABIA ', `ABIA${of('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 14)}Q7`),
];

// Key prefixes in prose, hashes and ids that share a key's alphabet.
const splitNegatives = [
  'AKIA is the prefix AWS uses for access key ids, ASIA for temporary ones.',
  'AKIA KEYS ARE NOT SECRET BY THEMSELVES OK',
  'ASIA TOUR 2025 DATES ANNOUNCED SOON',
  'ghp_ tokens expire after 90 days, gho_ tokens are OAuth ones.',
  'The sk-proj- prefix marks project keys; sk-ant- is Anthropic.',
  'Use sk_test_ keys in development, never sk_live_ ones.',
  'commit 4c0883a69102937d6231471b5dbb6204fe512961 fixed the secret rotation',
  'aws secret access key: not shown here for security reasons ok',
  'my AWS secret key is in the Console since 2 days ago and I need help',
  'AWS request id 4d5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f failed',
  'AWS S3 bucket: my-bucket-name-2024-backups-archive-eu',
  'hf_ tokens, npm_ tokens and glpat- tokens are all secrets.',
  'xoxb- is the Slack bot prefix, xapp- the app-level one.',
  'AIza is how Google API keys start, never post the rest.',
  'Secret Santa 2024: Anna gives to Boris, Boris to Clara, Clara to Anna.',
  'AKIA2 is not a key, and AKIA IS NOT ONE EITHER',
];

const vendorNegatives = [
  'sk-learn is a Python library, also known as scikit-learn.',
  'I ask-ed for help, sk- is the prefix of many keys.',
  'The SG. prefix is SendGrid, e.g. SG.xxxx.yyyy in the docs.',
  'npm_config_registry=https is a setting, not a token',
  'hf_hub_download and hf_transfer are Hugging Face helpers.',
  'dop_v1_ tokens are DigitalOcean ones, shpat_ are Shopify ones.',
  'gsk_ and pplx- prefixes belong to Groq and Perplexity.',
  'sk-ant-api03- is the prefix; the rest is secret.',
  'Desk-ask-task-mask-risk-disk: words ending in sk.',
  'pypi-upload is the name of the CI job.',
];

export const SPLIT_KEYS: EvasionClass = {
  name: 'api key: split by spaces, AWS secrets',
  positives: splitPositives,
  negatives: splitNegatives,
};

export const VENDOR_KEYS: EvasionClass = {
  name: 'api key: vendors at real lengths',
  positives: vendorPositives,
  negatives: vendorNegatives,
};
