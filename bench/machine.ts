// The machine a bench run ran on, as every report section states it.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

export interface Machine {
  nproc: number;
  cpuModel: string;
  ramGiB: number;
  node: string;
  kernel: string;
  sqlite: string;
  tmpFilesystem: string;
  loadAverage: string;
}

export function describeMachine(sqlite: string, tmpDir: string): Machine {
  let cpuModel = os.cpus()[0]?.model ?? 'unknown';
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match?.[1]) cpuModel = match[1].trim();
  } catch {
    // not Linux: keep os.cpus()
  }
  const stat = spawnSync('stat', ['-f', '-c', '%T', tmpDir], { encoding: 'utf8' });
  return {
    nproc: os.availableParallelism(),
    cpuModel,
    ramGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    kernel: `${os.type()} ${os.release()}`,
    sqlite,
    tmpFilesystem: stat.status === 0 ? stat.stdout.trim() : 'unknown',
    loadAverage: os
      .loadavg()
      .map((load) => load.toFixed(2))
      .join(' '),
  };
}
