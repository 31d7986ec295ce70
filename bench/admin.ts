import { fileURLToPath } from 'node:url';
import { loginSection, loginSummary, verifyVerdict } from './admin-report.ts';
import { adminMeTarget, seedOwner } from './admin-session.ts';
import { exitCode, measureAgainstHello, runInfo, settingsFromEnv, writeReport } from './against-hello.ts';
import { positiveInt, say } from './env.ts';
import { measureLoginCost } from './login-cost.ts';
import { renderMarkdown, type Subject, summaryRows, targetLines, verdicts } from './report.ts';
import { startHello, startService } from './targets.ts';
import { withTeardown } from './teardown.ts';

const REPORT_FILE = fileURLToPath(new URL('./results/admin.md', import.meta.url));
const SUBJECT: Subject = {
  name: 'admin-me',
  route: '`GET /admin/me` (admin session token, account check cached per admin for 2 s)',
};
const WARMUPS = 2;

/** `npm run bench -- admin`: the admin read against bare fastify, then the cost of a login. */
export async function benchAdmin(signal: AbortSignal): Promise<number> {
  const settings = settingsFromEnv(signal);
  const login = {
    warmups: WARMUPS,
    verifyRuns: positiveInt('BENCH_VERIFY_RUNS') ?? 20,
    loginRuns: positiveInt('BENCH_LOGIN_RUNS') ?? 10,
    signal,
  };
  return withTeardown(async (teardown) => {
    const hello = await startHello(teardown);
    const service = await startService(settings, teardown);
    const owner = await seedOwner(service.pool);
    const me = await adminMeTarget(service.base, owner, signal);
    const results = await measureAgainstHello(settings, hello, me, SUBJECT);
    say(
      `login cost: ${login.verifyRuns} verifications, ${login.loginRuns} logins with the owner's and an ` +
        `unknown email, one at a time after ${WARMUPS} warm-ups`,
    );
    const cost = await measureLoginCost(service.base, owner, login);

    const info = runInfo(settings, service);
    const checks = [...verdicts(info, results, SUBJECT), verifyVerdict(cost)];
    const markdown = renderMarkdown({
      title: 'Benchmark: admin read vs. bare fastify, and the cost of a login',
      command: 'npm run bench -- admin',
      info,
      subject: SUBJECT,
      results,
      checks,
      sections: loginSection(cost, WARMUPS),
    });
    await writeReport(REPORT_FILE, markdown, [
      ...summaryRows(results, SUBJECT),
      ...loginSummary(cost),
      ...targetLines(checks),
    ]);
    return exitCode(
      results.hello.failures + results.service.failures + cost.failures,
      'non-2xx responses, errors, timeouts, failed verifications or unexpected login answers',
    );
  });
}
