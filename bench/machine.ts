import { availableParallelism, cpus, totalmem } from 'node:os';

export interface Machine {
  readonly node: string;
  readonly cpuCount: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
}

export const machine = (): Machine => ({
  node: process.version,
  cpuCount: availableParallelism(),
  cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
  memoryGiB: Math.round(totalmem() / 2 ** 30),
});
