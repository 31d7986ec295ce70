import { serveOrchestrator } from './fleet-ipc.ts';
import { fakesHandlers, hostFakes } from './push-fakes.ts';

/**
 * The push bench's fakes process (forked by push.ts): the loopback FCM and Telegram, away from the
 * service's event loop, as the real services are.
 */
try {
  const host = await hostFakes();
  serveOrchestrator(fakesHandlers(host), { env: host.env }, () => host.close());
} catch (error) {
  process.stderr.write(
    `push fakes: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
}
