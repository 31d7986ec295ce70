import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { startPushFakes } from '../dev/push-fakes/index.ts';
import { printable } from '../lib/printable.ts';

const port = (value: string | undefined, name: string): number => {
  const n = Number(value ?? 0);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number`);
  return n;
};

/**
 * Starts both push fakes until Ctrl-C, printing the environment lines for the service and, as pushes
 * arrive, one line per push (platform, where to, title): so a developer can watch a push leave.
 */
export async function runPushFakes(config: Config, args: string[]): Promise<void> {
  if (config.NODE_ENV === 'production') throw new Error('push-fakes is not available in production');
  const { values } = parseArgs({
    args,
    options: { 'fcm-port': { type: 'string' }, 'telegram-port': { type: 'string' } },
  });
  const fakes = await startPushFakes({
    fcm: { port: port(values['fcm-port'], '--fcm-port'), record: true },
    telegram: { port: port(values['telegram-port'], '--telegram-port') },
  });
  const lines = Object.entries(fakes.env).map(([name, value]) => `${name}=${value}`);
  process.stdout.write(
    `Push fakes listening. Start the service with:\n\n  ${lines.join(' \\\n  ')} \\\n  npm start\n\n` +
      'Pushes that arrive are printed below. Ctrl-C stops.\n',
  );
  let shownFcm = 0;
  let shownTelegram = 0;
  const timer = setInterval(() => {
    const mobile = fakes.fcm.received();
    for (const m of mobile.slice(shownFcm)) {
      // JSON escapes C0 controls but not DEL, C1 or bidi characters: printable does the rest.
      const line = `fcm      ${m.status} ${JSON.stringify(m.notification?.title ?? '')} ${JSON.stringify(m.data ?? {})}`;
      process.stdout.write(`${printable(line)}\n`);
    }
    shownFcm = mobile.length;
    const messenger = fakes.telegram.received();
    for (const m of messenger.slice(shownTelegram)) {
      const line = `telegram ${m.status} chat ${m.chatId} ${JSON.stringify(m.text.split('\n')[0] ?? '')} ${JSON.stringify(m.replyMarkup ?? null)}`;
      process.stdout.write(`${printable(line)}\n`);
    }
    shownTelegram = messenger.length;
  }, 250);
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        resolve();
      });
    }
  });
  clearInterval(timer);
  await fakes.close();
}
