import { fileURLToPath } from 'node:url';
import { exitCode, measureAgainstHello, runInfo, settingsFromEnv, writeReport } from './against-hello.ts';
import { renderMarkdown, type Subject, summaryRows, targetLines, verdicts } from './report.ts';
import { startHello, startService } from './targets.ts';
import { withTeardown } from './teardown.ts';

const REPORT_FILE = fileURLToPath(new URL('./results/settings-read.md', import.meta.url));
const SUBJECT: Subject = {
  name: 'settings',
  route: '`GET /api/settings/notifications` (JWT auth, rate limit, database read)',
};

/** `npm run bench [-- settings-read]`: the settings read against bare fastify; resolves the exit code. */
export async function benchSettingsRead(signal: AbortSignal): Promise<number> {
  const settings = settingsFromEnv(signal);
  return withTeardown(async (teardown) => {
    const hello = await startHello(teardown);
    const service = await startService(settings, teardown);
    const results = await measureAgainstHello(settings, hello, service.target, SUBJECT);

    const info = runInfo(settings, service);
    const checks = verdicts(info, results, SUBJECT);
    const markdown = renderMarkdown({
      title: 'Benchmark: settings read vs. bare fastify',
      command: 'npm run bench',
      info,
      subject: SUBJECT,
      results,
      checks,
    });
    await writeReport(REPORT_FILE, markdown, [...summaryRows(results, SUBJECT), ...targetLines(checks)]);
    return exitCode(results.hello.failures + results.service.failures);
  });
}
