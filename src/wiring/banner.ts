import type { FirstPasswordHandover } from '../auth/bootstrap.ts';
import type { ResolvedConfig } from '../config.ts';
import { DEMO_USER_ID, mintSessionToken } from '../dev/token.ts';
import { CONSOLE_PATH } from '../http/routes/console.ts';

const DEMO_TOKEN_TTL_SECONDS = 24 * 3600;

/**
 * What a developer reads when the service has started: where it listens, the API docs and the admin
 * console, a demo user's token, the first admin's credentials or where they went. Printed, not logged: the
 * demo token and a generated password are meant for the developer's terminal, never for log storage (and
 * the password is only here when stderr is a terminal). On stderr, so that stdout carries log lines only
 * and a JSON reader of it never meets it.
 */
export function printBanner(
  config: ResolvedConfig,
  port: number,
  firstAdmin: FirstPasswordHandover | null,
  processes: string | null,
): void {
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const lines = [
    `Service listening on ${base}`,
    `  API docs:   ${base}/docs`,
    `  Console:    ${base}${CONSOLE_PATH}`,
  ];
  if (processes !== null) lines.push(`  Processes:  ${processes}`);
  if (config.NODE_ENV !== 'production') {
    const { token, expiresAt } = mintSessionToken(config.JWT_SECRET, DEMO_USER_ID, DEMO_TOKEN_TTL_SECONDS);
    lines.push(
      `  Demo user:  ${DEMO_USER_ID} (session token valid until ${expiresAt.toISOString()})`,
      `  export TOKEN=${token}`,
      `  curl -H "Authorization: Bearer $TOKEN" ${base}/api/settings/notifications`,
    );
  }
  if (firstAdmin?.to === 'terminal') {
    lines.push(
      `  First admin (shown this once): ${firstAdmin.email} / ${firstAdmin.password}`,
      `  curl -X POST -H 'content-type: application/json' ${base}/admin/auth/login \\`,
      `    -d '{"email":"${firstAdmin.email}","password":"${firstAdmin.password}"}'`,
    );
  } else if (firstAdmin?.to === 'file') {
    lines.push(
      `  First admin: ${firstAdmin.email}, password in ${firstAdmin.file} (mode 0600; delete it once used)`,
    );
  } else if (firstAdmin?.to === 'nowhere') {
    const command = `npm run cli -- admins set-password --email ${firstAdmin.email}`;
    lines.push(`  First admin: ${firstAdmin.email}, password not saved; set one with: ${command}`);
  }
  process.stderr.write(`\n${lines.join('\n')}\n\n`);
}
