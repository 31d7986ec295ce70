import { Counter, type Registry } from 'prom-client';
import { AGED_TABLES, IDEMPOTENCY_KEYS } from './retention-tables.ts';

/** What a retention pass reports as it goes, batch by batch. */
export interface RetentionProgress {
  rowsPruned(table: string, count: number): void;
  tempFilesRemoved(count: number): void;
}

export const noProgress: RetentionProgress = {
  rowsPruned: () => undefined,
  tempFilesRemoved: () => undefined,
};

/** The retention job's counters on `registry`, each series present (at 0) from the start. */
export function retentionMetrics(registry: Registry): RetentionProgress {
  const rows = new Counter({
    name: 'retention_rows_pruned_total',
    help: 'Rows the retention job deleted in this process, by table',
    labelNames: ['table'] as const,
    registers: [registry],
  });
  for (const table of [...AGED_TABLES, IDEMPOTENCY_KEYS]) rows.inc({ table: table.name }, 0);
  const files = new Counter({
    name: 'retention_temp_files_removed_total',
    help: 'Temporary upload files left by a crashed write that the retention job removed in this process',
    registers: [registry],
  });
  return {
    rowsPruned: (table, count) => {
      rows.inc({ table }, count);
    },
    tempFilesRemoved: (count) => {
      files.inc(count);
    },
  };
}
