// The command-line writer: `leasehold import` and `add` adding items, and `claim --reviewer`, `renew`, `release` and
// `decide` on the database file itself, as separate processes, while the servers run and are killed.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { hashLeaseToken } from '../../src/domain/lease.js';
import { type RunResult, runLeasehold } from '../cli/support.js';
import type { Decision, Ledger } from './ledger.js';
import { sleep } from './settings.js';
import { pickDecision } from './workload.js';

/** Recorded as `addedBy` of the items the command line adds. */
export const CLI_PROPOSER = 'cli-writer';
/** The `--reviewer` of the command line's claims (a name, not a principal: the CLI needs no key). */
export const CLI_REVIEWER = 'cli-reviewer';

interface CliWriter {
  file: string;
  /** Scratch folder for import files. */
  dir: string;
  ledger: Ledger;
  random: () => number;
  stopping(): boolean;
  /** How many items to add in all. */
  items: number;
}

type Json = Record<string, unknown>;

async function run(writer: CliWriter, command: string, args: string[]): Promise<{ result: RunResult; json: Json | null; at: number }> {
  const result = await runLeasehold([command, writer.file, ...args], {
    cwd: writer.dir,
    env: { LEASEHOLD_ACTOR: CLI_PROPOSER },
    timeoutMs: 60_000,
  });
  const at = Date.now();
  const text = (result.code === 0 ? result.stdout : result.stderr).trim().split('\n')[0] ?? '';
  let json: Json | null = null;
  try {
    json = JSON.parse(text) as Json;
  } catch {
    json = null;
  }
  writer.ledger.count(`cli ${command}: run`);
  // Exit 2 is a business answer (e.g. claim_expired); anything else but 0 (database_error, a crash) is a problem.
  if (result.code !== 0 && result.code !== 2) {
    writer.ledger.problem(`leasehold ${command} exited ${result.code ?? result.signal}: ${result.stderr.slice(0, 500)}`);
  }
  return { result, json, at };
}

function refusal(writer: CliWriter, op: 'renew' | 'release' | 'decide', json: Json | null, lapsed: boolean): void {
  const code = String(json?.error ?? 'unknown');
  writer.ledger.refusals.push({
    op,
    via: 'cli',
    code,
    actor: CLI_REVIEWER,
    excuse: lapsed ? 'lease-lapsed' : null,
    detail: JSON.stringify(json),
  });
  writer.ledger.count(`cli ${op}: refused ${code}`);
}

export async function cliWriter(writer: CliWriter): Promise<void> {
  const { ledger, random } = writer;
  let added = 0;
  for (let cycle = 0; !writer.stopping(); cycle++) {
    if (added < writer.items) {
      const batchId = `cli-${String(cycle).padStart(4, '0')}`;
      if (cycle % 3 === 0 && writer.items - added >= 50) {
        // A file of up to 100 items in chunks of 50: each chunk is one transaction among the servers' own.
        const count = Math.min(100, writer.items - added);
        const items = Array.from({ length: count }, (_, index) => ({
          batch_id: batchId,
          record_id: `C-${String(index).padStart(3, '0')}`,
          proposed_category: index % 2 === 0 ? 'alpha' : 'beta',
          reason: 'imported from the command line',
        }));
        const file = path.join(writer.dir, `${batchId}.jsonl`);
        writeFileSync(file, `${items.map((item) => JSON.stringify(item)).join('\n')}\n`);
        const { result, json, at } = await run(writer, 'import', [file, '--chunk-size', '50', '--progress', 'none']);
        if (result.code === 0 && json?.imported === count) {
          for (const item of items) ledger.ack({ op: 'add', via: 'cli', actor: CLI_PROPOSER, batchId, recordId: item.record_id, at });
          ledger.count('cli add: items acknowledged', count);
          added += count;
        } else {
          ledger.problem(`leasehold import answered ${result.code}: ${result.stdout}${result.stderr}`.slice(0, 500));
        }
      } else {
        const recordId = 'C-000';
        const { result, at } = await run(writer, 'add', [
          '--batch-id',
          batchId,
          '--record-id',
          recordId,
          '--proposed-category',
          'alpha',
          '--reason',
          'added from the command line',
        ]);
        if (result.code === 0) {
          ledger.ack({ op: 'add', via: 'cli', actor: CLI_PROPOSER, batchId, recordId, at });
          ledger.count('cli add: items acknowledged');
          added += 1;
        } else {
          ledger.problem(`leasehold add answered ${result.code}: ${result.stderr}`.slice(0, 500));
        }
      }
    }

    const claimed = await run(writer, 'claim', ['--reviewer', CLI_REVIEWER, '--lease-seconds', '30']);
    const lease = claimed.json;
    if (claimed.result.code !== 0 || lease?.claimed !== true) {
      if (claimed.result.code === 0) ledger.count('cli claim: nothing claimable');
      else ledger.problem(`leasehold claim answered ${claimed.result.code}: ${claimed.result.stderr}`.slice(0, 500));
      await sleep(100);
      continue;
    }
    const token = String(lease.claim_token);
    const where = { batchId: String(lease.batch_id), recordId: String(lease.record_id) };
    // Seed A prints whole seconds, floored: the lease really ends up to a second later.
    let expiresAt = Number(lease.claim_expires_at) * 1000;
    ledger.ack({
      op: 'claim',
      via: 'cli',
      actor: CLI_REVIEWER,
      ...where,
      tokenHash: hashLeaseToken(token),
      claimedAtSecond: Number(lease.claimed_at),
      expiresAt,
      at: claimed.at,
    });
    ledger.count('cli claim: acknowledged');

    const roll = random();
    if (roll < 0.05) {
      ledger.count('cli lease: abandoned');
      continue;
    }
    if (roll < 0.2) {
      const renewed = await run(writer, 'renew', [`--token=${token}`, '--lease-seconds', '30']);
      if (renewed.result.code !== 0) {
        refusal(writer, 'renew', renewed.json, renewed.at >= expiresAt + 1000);
        continue;
      }
      expiresAt = Number(renewed.json?.claim_expires_at) * 1000;
      ledger.ack({ op: 'renew', via: 'cli', actor: CLI_REVIEWER, ...where, expiresAt, at: renewed.at });
      ledger.count('cli renew: acknowledged');
    }
    if (roll < 0.35) {
      const released = await run(writer, 'release', [`--token=${token}`]);
      if (released.result.code !== 0) refusal(writer, 'release', released.json, released.at >= expiresAt + 1000);
      else {
        ledger.ack({ op: 'release', via: 'cli', actor: CLI_REVIEWER, ...where, at: released.at });
        ledger.count('cli release: acknowledged');
      }
      continue;
    }
    const decision: Decision = pickDecision(random);
    const decided = await run(writer, 'decide', [
      `--token=${token}`,
      '--decision',
      decision.toLowerCase(),
      ...(decision === 'CORRECTED' ? ['--category', 'gamma'] : []),
    ]);
    if (decided.result.code !== 0) {
      refusal(writer, 'decide', decided.json, decided.at >= expiresAt + 1000);
      continue;
    }
    const answer = decided.json ?? {};
    if (answer.status !== decision.toLowerCase() || answer.reviewed_by !== CLI_REVIEWER || answer.record_id !== where.recordId) {
      ledger.problem(`leasehold decide answered ${JSON.stringify(answer)} for ${JSON.stringify(where)}`);
    }
    ledger.ack({
      op: 'decide',
      via: 'cli',
      actor: CLI_REVIEWER,
      ...where,
      decision,
      finalCategory: (answer.final_category as string | null) ?? null,
      at: decided.at,
    });
    ledger.count(`cli decide ${decision}: acknowledged`);
  }
}
