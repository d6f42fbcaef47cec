// `leasehold import`'s progress on stderr: a bar redrawn in place on a terminal, JSON lines otherwise.
import { jsonLine } from './output.js';

export interface Counts {
  lines: number;
  imported: number;
  skipped: number;
  failed: number;
}

/** Progress on stderr: a redrawn bar on a terminal, JSON lines at each tenth of the file otherwise. */
export class Progress {
  private bytes = 0;
  private drawnAt = 0;
  private barShown = false;
  private lastTenth = -1;
  private lastLineAt = performance.now();
  private readonly started = performance.now();

  constructor(
    private readonly mode: 'bar' | 'lines' | 'none',
    private readonly totalBytes: number | null,
  ) {}

  addBytes(count: number): void {
    this.bytes += count;
  }

  private percent(): number | null {
    if (!this.totalBytes) return null;
    return Math.min(100, (this.bytes / this.totalBytes) * 100);
  }

  /** Writes a line on stderr without tearing the bar. */
  log(text: string): void {
    if (this.barShown) {
      process.stderr.write('\r\u001b[2K');
      this.barShown = false;
    }
    process.stderr.write(text);
  }

  /** After each committed chunk (and, for the bar, at most ten times a second in between). */
  update(counts: Counts, committed: boolean): void {
    const now = performance.now();
    const percent = this.percent();
    if (this.mode === 'bar') {
      if (!committed && now - this.drawnAt < 100) return;
      this.drawnAt = now;
      const rate = Math.round(counts.lines / Math.max(0.001, (now - this.started) / 1000));
      const number = (value: number) => value.toLocaleString('en-US');
      const head = percent === null ? '' : `[${'█'.repeat(Math.round(percent / 5)).padEnd(20, '░')}] ${percent.toFixed(0).padStart(3)}%  `;
      process.stderr.write(
        `\r\u001b[2K${head}${number(counts.lines)} lines  ${number(counts.imported)} imported  ${number(counts.skipped)} skipped  ${number(counts.failed)} failed  ${number(rate)} lines/s`,
      );
      this.barShown = true;
      return;
    }
    if (this.mode === 'lines' && committed) {
      const tenth = percent === null ? null : Math.floor(percent / 10);
      const due = tenth === null ? now - this.lastLineAt >= 1000 : tenth > this.lastTenth;
      if (!due) return;
      if (tenth !== null) this.lastTenth = tenth;
      this.lastLineAt = now;
      const progress = { ...counts, ...(percent === null ? {} : { percent: Math.round(percent * 10) / 10 }) };
      process.stderr.write(jsonLine({ progress }));
    }
  }

  finish(): void {
    if (this.barShown) process.stderr.write('\n');
    this.barShown = false;
  }
}
