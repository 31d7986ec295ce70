import { digits, fromAlphabet, pick, random } from './helpers.ts';

const next = random(2024);
const HEX = '0123456789abcdef';
const two = (max: number): string => String(1 + Math.floor(next() * max)).padStart(2, '0');
const hash = (): string => fromAlphabet(next, HEX, 64);
const amount = (): string => `${Math.floor(next() * 5000)}.${digits(next, 2)}`;

// Each template makes one benign comment with fresh numbers: orders, phones, dates, hashes, prices.
const TEMPLATES: readonly (() => string)[] = [
  () => `Order #${digits(next, 12 + Math.floor(next() * 5))} is still not shipped`,
  () => `Заказ № ${digits(next, 9 + Math.floor(next() * 8))} оплачен ${two(28)}.${two(12)}.2024`,
  () => `номер заказа ${digits(next, 14)}, подскажите статус`,
  () => `Tracking: ${digits(next, 14)}, arrives ${two(28)}/${two(12)}`,
  () => `Трек ${digits(next, 14)}, ждём посылку`,
  () =>
    `Call +7 9${digits(next, 2)} ${digits(next, 3)}-${digits(next, 2)}-${digits(next, 2)} after ${two(12)}:00`,
  () => `Телефон 8 (9${digits(next, 2)}) ${digits(next, 3)}-${digits(next, 2)}-${digits(next, 2)}`,
  () => `whatsapp +${digits(next, 12)} только сообщения`,
  () => `My number +44 ${digits(next, 2)} ${digits(next, 4)} ${digits(next, 4)}`,
  () => `tx 0x${hash()} confirmed after ${two(60)} blocks`,
  () => `Хеш: ${hash()}, комиссия ${amount()}`,
  () => `The transfer ${hash()} shows ${two(30)} confirmations`,
  () => `created ${String(1_500_000_000_000 + Math.floor(next() * 300_000_000_000))} by the job`,
  () => `Logged at ${String(1_600_000_000_000 + Math.floor(next() * 200_000_000_000))} ms`,
  () => `Price ${amount()} USD, was ${amount()}`,
  () => `Стоимость ${amount()} ₽, доставка ${two(20)}0 ₽`,
  () => `Meet at ${two(23)}.${two(59)} on ${two(28)}.${two(12)}.2025`,
  () => `Встреча в ${two(23)}:${two(59)}, ${two(28)}.${two(12)}`,
  () => `Updated to v${two(9)}.${two(20)}.${two(30)}, see CHANGELOG.txt`,
  () => `Build ${digits(next, 4)} of app.js, config.json and readme.txt`,
  () => `Invoice INV-2024-${digits(next, 6)}-${digits(next, 6)} is paid`,
  () => `ID ${digits(next, 12)} in the admin panel`,
  () => `артикул ${digits(next, 12)}, размер ${two(50)}`,
  () => `Счёт ${digits(next, 20)} от ${two(28)}.${two(12)}.2024`,
  () => `${two(28)}.${two(12)}.2024 ${two(23)}:${two(59)} — всё пришло`,
  () => `I paid ${amount()} on ${two(12)}/${two(28)}/2024, ref ${digits(next, 10)}`,
  () => `Score ${two(9)}:${two(9)}, next game ${two(28)}.${two(12)} at ${two(23)}:00`,
  () => `Room ${digits(next, 3)}, floor ${two(9)}, code ${digits(next, 4)}`,
  () => `ИНН ${digits(next, 12)}, ОГРН ${digits(next, 13)}`,
  () => `Посылка ${digits(next, 14)} в пункте выдачи до ${two(28)}.${two(12)}`,
];

/** English sentences built from BIP39 words broken up by the little words ordinary prose needs. */
const BIP39_NOUNS = [
  'time',
  'people',
  'water',
  'world',
  'family',
  'money',
  'order',
  'phone',
  'window',
  'answer',
  'problem',
  'update',
  'letter',
  'picture',
  'number',
];
const BIP39_VERBS = [
  'call',
  'check',
  'change',
  'find',
  'give',
  'learn',
  'move',
  'open',
  'pay',
  'play',
  'try',
  'want',
  'write',
  'build',
  'keep',
];
const BIP39_ADJECTIVES = [
  'great',
  'little',
  'large',
  'small',
  'same',
  'good',
  'simple',
  'happy',
  'ready',
  'early',
  'easy',
  'final',
  'fresh',
  'empty',
  'busy',
];

function prose(): string {
  const noun = (): string => pick(next, BIP39_NOUNS);
  const verb = (): string => pick(next, BIP39_VERBS);
  const adjective = (): string => pick(next, BIP39_ADJECTIVES);
  return [
    `You ${verb()} the ${adjective()} ${noun()} and they ${verb()} another ${adjective()} ${noun()} for the ${noun()}.`,
    `Please ${verb()} my ${noun()} again, the ${adjective()} ${noun()} was ${adjective()} and ${adjective()} today.`,
    `All people want a ${adjective()} ${noun()}, a ${adjective()} ${noun()} and more ${noun()} to ${verb()} with.`,
  ].join(' ');
}

export function generatedNegatives(count: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    i % 4 === 3 ? prose() : (TEMPLATES[i % TEMPLATES.length] ?? prose)(),
  );
}
