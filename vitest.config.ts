import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 90_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
