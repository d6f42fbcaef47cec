// Differential tests: seed A's review_leases.py and `leasehold` run the same command sequences, each
// in a fresh folder, and must agree on every exit code and every JSON line a script can parse.
// (Lease expiry and same-second ordering, which wait on the clock, are in seed-timing.test.ts.)
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, renameSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  addArgs as add,
  CATEGORIES,
  Differential,
  jsonLines,
  observe,
  scenario as run,
  SEED_A_MISSING,
  SEED_A_TESTS_RUN,
  seedAvailable,
  useSeedScript,
} from './support.js';

describe.runIf(SEED_A_TESTS_RUN)(`leasehold vs seed A (review_leases.py)${SEED_A_MISSING}`, () => {
  it('finds seed A beside the checkout (shared/seeds/)', () => {
    expect(seedAvailable()).toBe(true);
  });

  const seed = useSeedScript();
  const scenario = (body: (d: Differential) => Promise<void>, options: { init?: boolean } = {}) => run(seed.path, body, options);

  // Each scenario starts dozens of processes one after another (seed A's Python, leasehold's Node: 0.5–1 s each on a
  // busy machine), five scenarios at a time beside the other test files: a CI run on 2026-12-06 saw four of them pass
  // 60 s. A limit on how long they may take, not a measure of their speed.
  describe.concurrent('commands', { timeout: 180_000 }, () => {
    it("the seed's own walkthrough: init, add, claim, claimed:false, renew, decide, decide again, show", () =>
      scenario(async (d) => {
        await d.expect(add('batch-20261005', 'C-001'), { exit: 0, json: { added: true, batch_id: 'batch-20261005', record_id: 'C-001' } });
        const claim = await d.expect(
          ['claim', 'r.db', '--reviewer', 'tanaka', '--lease-seconds', '300'],
          { exit: 0 },
          { stdoutTo: 'claim-tanaka.json' },
        );
        const claimed = jsonLines(claim.leasehold.stdout)[0] as Record<string, number | string>;
        expect(claimed.claim_token).toMatch(/^lh_[A-Za-z0-9_-]{32}$/);
        expect((claimed.claim_expires_at as number) - (claimed.claimed_at as number)).toBe(300);
        await d.expect(['claim', 'r.db', '--reviewer', 'suzuki', '--lease-seconds', '300'], {
          exit: 0,
          json: { ok: true, claimed: false },
        });
        await d.expect(['renew', 'r.db', '--claim-json', 'claim-tanaka.json', '--lease-seconds', '300'], {
          exit: 0,
          json: { renewed: true },
        });
        await d.expect(['show', 'r.db', '--batch-id', 'batch-20261005', '--record-id', 'C-001'], {
          exit: 0,
          json: { status: 'pending', claimed_by: 'tanaka', claim_state: 'active' },
        });
        await d.expect(['decide', 'r.db', '--claim-json', 'claim-tanaka.json', '--decision', 'corrected', '--category', '請求'], {
          exit: 0,
          json: { status: 'corrected', final_category: '請求', reviewed_by: 'tanaka' },
        });
        await d.expect(['decide', 'r.db', '--claim-json', 'claim-tanaka.json', '--decision', 'corrected', '--category', '請求'], {
          exit: 2,
          error: 'claim_not_found',
        });
        await d.expect(['show', 'r.db', '--batch-id', 'batch-20261005', '--record-id', 'C-001'], {
          exit: 0,
          json: { status: 'corrected', proposed_category: '配送', final_category: '請求', claimed_by: null, claim_state: 'not_applicable' },
        });
      }));

    it('init: categories checked first, then the file; an existing file is refused', () =>
      scenario(
        async (d) => {
          await d.expect(['init', 'x.db'], { exit: 2, error: 'argument_error' });
          await d.expect(['init', 'x.db', '--category', 'a', '--category', 'a'], { exit: 2, error: 'duplicate_category' });
          await d.expect(['init', 'x.db', '--category', ' a'], { exit: 2, error: 'invalid_text' });
          await d.expect(['init', 'x.db', '--category', ''], { exit: 2, error: 'invalid_text' });
          await d.expect(['init', 'x.db', '--category', 'c'.repeat(51)], { exit: 2, error: 'invalid_text' });
          await d.expect(['init', 'missing-dir/x.db', '--category', 'a'], { exit: 3, error: 'database_error' });
          // pathlib spelling of the path in the answer; abbreviated and --opt=value options.
          await d.expect(['init', './/x.db/', '--cat=a', '--categ', 'b', '--category', 'c'.repeat(50)], {
            exit: 0,
            json: { database: 'x.db', category_count: 3 },
          });
          await d.expect(['init', 'x.db', '--category', 'a'], { exit: 2, error: 'database_exists' });
          // Text before file: an invalid category on an existing file is invalid_text.
          await d.expect(['init', 'x.db', '--category', 'a\u0001'], { exit: 2, error: 'invalid_text' });
          await d.expect(['init', '.', '--category', 'a'], { exit: 2, error: 'database_exists' });
          await d.expect(['init', '', '--category', 'a'], { exit: 2, error: 'database_exists' });
        },
        { init: false },
      ));

    it('add: every text rule, unknown category, duplicate item, and checks before the file', () =>
      scenario(async (d) => {
        await d.expect(add('b', 'r1'), { exit: 0 });
        await d.expect(add('b', 'r1'), { exit: 2, error: 'duplicate_item' });
        await d.expect(add('b', 'r2', '未知'), { exit: 2, error: 'unknown_category' });
        // unknown_category is checked before duplicate_item, as in seed A
        await d.expect(add('b', 'r1', '未知'), { exit: 2, error: 'unknown_category' });
        for (const bad of ['', ' x', 'x ', 'x\ty', 'x\u007f', '\u00a0x', 'x\u3000', 'x\n']) {
          await d.expect(add(bad, 'r3'), { exit: 2, error: 'invalid_text' });
        }
        await d.expect(add('b'.repeat(101), 'r3'), { exit: 2, error: 'invalid_text' });
        await d.expect(add('b', 'r'.repeat(101)), { exit: 2, error: 'invalid_text' });
        await d.expect(add('b', 'r3', '配送', 'x'.repeat(1001)), { exit: 2, error: 'invalid_text' });
        // Lengths count code points (Python's len), and U+FEFF is not whitespace to str.strip().
        await d.expect(add('😀'.repeat(100), '配'.repeat(100), '配送', '𝟘'.repeat(1000)), { exit: 0 });
        await d.expect(add('\ufeffb', 'r4'), { exit: 0 });
        await d.expect(add('b', 'r5', '配送', '-starts with a dash and has spaces'), { exit: 0 });
        await d.expect(add('b', 'r6', '配送', '-nospace'), { exit: 2, error: 'argument_error' });
        await d.expect(['add', 'r.db', '--batch-id', 'b', '--record-id', 'r6', '--proposed-category', '配送', '--reason=-nospace'], {
          exit: 0,
        });
        await d.expect(['add', 'r.db', '--batch-id', 'b', '--record-id', 'r7', '--proposed-category', '配送'], {
          exit: 2,
          error: 'argument_error',
        });
        // "--re" could be --record-id or --reason: ambiguous.
        await d.expect(['add', 'r.db', '--batch-id', 'b', '--re', 'r7', '--proposed-category', '配送', '--reason', 'x'], {
          exit: 2,
          error: 'argument_error',
        });
        await d.expect(['add', 'r.db', '--b', 'b', '--rec', 'r7', '--prop', '配送', '--rea', 'x'], { exit: 0 });
        // The file is looked at after the text: a bad text on a missing file is invalid_text.
        await d.expect(['add', 'missing.db', '--batch-id', ' b', '--record-id', 'r', '--proposed-category', 'a', '--reason', 'x'], {
          exit: 2,
          error: 'invalid_text',
        });
        await d.expect(['add', 'missing.db', '--batch-id', 'b', '--record-id', 'r', '--proposed-category', 'a', '--reason', 'x'], {
          exit: 2,
          error: 'database_not_found',
        });
      }));

    it('files that are not a usable database: missing, a directory, empty, not SQLite', () =>
      scenario(async (d) => {
        for (const impl of ['seed', 'leasehold'] as const) mkdirSync(path.join(d.dirs[impl], 'folder.db'));
        d.write('empty.db', '');
        d.write('text.db', 'this is not a database, just some text that is long enough to have a header...\n'.repeat(20));
        await d.expect(['claim', 'nothing.db', '--reviewer', 'a'], { exit: 2, error: 'database_not_found' });
        await d.expect(['claim', 'folder.db', '--reviewer', 'a'], { exit: 2, error: 'database_not_found' });
        await d.expect(['claim', 'empty.db', '--reviewer', 'a'], { exit: 2, error: 'unsupported_schema' });
        await d.expect(['claim', 'text.db', '--reviewer', 'a'], { exit: 3, error: 'database_error' });
        await d.expect(['show', 'text.db', '--batch-id', 'b', '--record-id', 'r'], { exit: 3, error: 'database_error' });
        await d.expect(['claim', 'r.db/', '--reviewer', 'a'], { exit: 0, json: { claimed: false } });
      }));

    it('claim: claimed:false, lease bounds as Python int() reads them, reviewer text, option forms', () =>
      scenario(async (d) => {
        await d.expect(['claim', 'r.db', '--reviewer', 'a'], { exit: 0, json: { ok: true, claimed: false } });
        for (const bad of ['29', '3601', '0', '-5', 'abc', '60.0', '', '1e2', '6__0', '_60']) {
          await d.expect(['claim', 'r.db', '--reviewer', 'a', '--lease-seconds', bad], { exit: 2, error: 'argument_error' });
        }
        for (const good of ['30', '3600', ' 60 ', '+60', '6_0', '0060', '٦٠', '６０']) {
          await d.expect(['claim', 'r.db', '--reviewer', 'a', `--lease-seconds=${good}`], { exit: 0, json: { claimed: false } });
        }
        await d.expect(['claim', 'r.db', '--reviewer', ''], { exit: 2, error: 'invalid_text' });
        await d.expect(['claim', 'r.db', '--reviewer', 'r'.repeat(101)], { exit: 2, error: 'invalid_text' });
        // lease length is an argument error, so it comes before the reviewer's text check
        await d.expect(['claim', 'r.db', '--reviewer', '', '--lease-seconds', '5'], { exit: 2, error: 'argument_error' });
        await d.expect(['claim', 'r.db'], { exit: 2, error: 'argument_error' });
        await d.expect(['claim', 'r.db', 'other.db', '--reviewer', 'a'], { exit: 2, error: 'argument_error' });
        await d.expect(['claim', 'r.db', '--reviewer', '-x'], { exit: 2, error: 'argument_error' });
        await d.expect(['claim', 'r.db', '-x', '--reviewer', 'a'], { exit: 2, error: 'argument_error' });
        await d.expect(add('b', 'r1'), { exit: 0 });
        await d.expect(add('b', 'r2'), { exit: 0 });
        await d.expect(add('b', 'r3'), { exit: 0 });
        // "-5" looks like a negative number, so argparse takes it as a value.
        await d.expect(['claim', '--rev', '-5', '--lease', '31', 'r.db'], { exit: 0, json: { claimed: true, claimed_by: '-5' } });
        // The last of a repeated option wins; "--" ends the options.
        await d.expect(['claim', '--reviewer', 'a', '--reviewer=b', '--', 'r.db'], { exit: 0, json: { claimed: true, claimed_by: 'b' } });
        await d.expect(['claim', '--reviewer', 'a', '--', 'r.db', '--lease-seconds', '60'], { exit: 2, error: 'argument_error' });
        await d.expect(['claim', 'r.db', '--reviewer=-x'], { exit: 0, json: { claimed: true, claimed_by: '-x' } });
        await d.expect(['claim', 'r.db', '--reviewer', 'a'], { exit: 0, json: { claimed: false } });
      }));

    it('release: the item is claimable again, with a new token; old tokens are claim_not_found', () =>
      scenario(async (d) => {
        await d.expect(add('b', 'r1'), { exit: 0 });
        await d.expect(['claim', 'r.db', '--reviewer', 'a'], { exit: 0 }, { capture: 'first', stdoutTo: 'first.json' });
        await d.expect(['release', 'r.db', '--token', '{token:first}'], {
          exit: 0,
          json: { released: true, batch_id: 'b', record_id: 'r1' },
        });
        await d.expect(['show', 'r.db', '--batch-id', 'b', '--record-id', 'r1'], {
          exit: 0,
          json: { claim_state: 'unclaimed', claimed_by: null },
        });
        await d.expect(['release', 'r.db', '--claim-json', 'first.json'], { exit: 2, error: 'claim_not_found' });
        await d.expect(['renew', 'r.db', '--token={token:first}'], { exit: 2, error: 'claim_not_found' });
        await d.expect(['claim', 'r.db', '--reviewer', 'b'], { exit: 0, json: { claimed_by: 'b' } }, { capture: 'second' });
        expect(d.token('leasehold', 'second')).not.toBe(d.token('leasehold', 'first'));
        await d.expect(['decide', 'r.db', '--token', '{token:first}', '--decision', 'accepted'], { exit: 2, error: 'claim_not_found' });
        await d.expect(['renew', 'r.db', '--t', '{token:second}', '--lease-seconds', '45'], { exit: 0, json: { renewed: true } });
        await d.expect(['decide', 'r.db', '--tok={token:second}', '--decision', 'rejected'], {
          exit: 0,
          json: { status: 'rejected', final_category: null, reviewed_by: 'b' },
        });
        await d.expect(['release', 'r.db', '--token', '{token:second}'], { exit: 2, error: 'claim_not_found' });
        await d.expect(['show', 'r.db', '--batch-id', 'b', '--record-id', 'r1'], {
          exit: 0,
          json: { status: 'rejected', claim_state: 'not_applicable' },
        });
      }));

    it('tokens and claim files: every claim_file_error, invalid_token, mutually exclusive sources, tokens starting with "-"', () =>
      scenario(async (d) => {
        await d.expect(add('b', 'r1'), { exit: 0 });
        await d.expect(['claim', 'r.db', '--reviewer', 'a'], { exit: 0 }, { capture: 'held', stdoutTo: 'held.json' });
        const unknown = 'A'.repeat(30);
        await d.expect(['release', 'r.db'], { exit: 2, error: 'argument_error' });
        await d.expect(['release', 'r.db', '--token', unknown, '--claim-json', 'held.json'], { exit: 2, error: 'argument_error' });
        await d.expect(['release', 'r.db', '--token', '-abcdefghijklmnopqrstuvwxyz'], { exit: 2, error: 'argument_error' });
        await d.expect(['release', 'r.db', '--token=-abcdefghijklmnopqrstuvwxyz'], { exit: 2, error: 'claim_not_found' });
        await d.expect(['release', 'r.db', '--token', unknown], { exit: 2, error: 'claim_not_found' });
        for (const bad of [
          '',
          'short',
          'A'.repeat(19),
          'A'.repeat(201),
          `${'A'.repeat(25)}!`,
          `${'A'.repeat(25)}é`,
          `${'A'.repeat(25)} `,
        ]) {
          await d.expect(['release', 'r.db', `--token=${bad}`], { exit: 2, error: 'invalid_token' });
        }
        await d.expect(['release', 'r.db', '--token', 'A'.repeat(200)], { exit: 2, error: 'claim_not_found' });
        // invalid_token before database_not_found; claim_not_found needs the database
        await d.expect(['release', 'missing.db', '--token', 'short'], { exit: 2, error: 'invalid_token' });
        await d.expect(['release', 'missing.db', '--token', unknown], { exit: 2, error: 'database_not_found' });

        const file = (name: string, content: string | Buffer) => d.write(name, content);
        file('big.json', `{"claim_token":"${unknown}"}${' '.repeat(16_384)}`);
        file('limit.json', `{"claim_token":"${unknown}"}`.padEnd(16_384, ' '));
        file('latin1.json', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]));
        file('bom.json', `\ufeff{"claim_token":"${unknown}"}`);
        file('broken.json', '{"claim_token":');
        file('list.json', `["${unknown}"]`);
        file('number.json', '{"claim_token": 12345678901234567890123}');
        file('missing.json', '{"token":"x"}');
        file('nan.json', `{"claim_token":"${unknown}","score":NaN,"range":[-Infinity,Infinity]}`);
        file('badtoken.json', '{"claim_token":"short"}');
        for (const name of [
          'big.json',
          'latin1.json',
          'bom.json',
          'broken.json',
          'list.json',
          'number.json',
          'missing.json',
          'nope.json',
          '.',
          '',
        ]) {
          await d.expect(['renew', 'r.db', '--claim-json', name], { exit: 2, error: 'claim_file_error' });
        }
        await d.expect(['renew', 'r.db', '--claim-json', 'limit.json'], { exit: 2, error: 'claim_not_found' });
        await d.expect(['renew', 'r.db', '--claim-json', 'nan.json'], { exit: 2, error: 'claim_not_found' });
        await d.expect(['renew', 'r.db', '--claim-json', 'badtoken.json'], { exit: 2, error: 'invalid_token' });
        // A claim file read from standard input, as `claim … | leasehold renew --claim-json /dev/stdin` does.
        await d.expect(
          ['renew', 'r.db', '--claim-json', '/dev/stdin', '--lease-seconds', '40'],
          { exit: 0, json: { renewed: true } },
          {
            input: '{"claim_token":"{token:held}"}',
          },
        );
        await d.expect(['renew', 'r.db', '--claim-j', 'held.json/', '--lease-seconds', '40'], { exit: 0, json: { renewed: true } });
        await d.expect(['renew', 'r.db', '--claim-json', 'held.json', '--lease-seconds', '29'], { exit: 2, error: 'argument_error' });
      }));

    it('decide: accepted, corrected, rejected and every category error, in seed A order', () =>
      scenario(async (d) => {
        await d.expect(add('b', 'r1'), { exit: 0 });
        await d.expect(add('b', 'r2', '請求'), { exit: 0 });
        await d.expect(add('b', 'r3'), { exit: 0 });
        await d.expect(['claim', 'r.db', '--reviewer', 'a'], { exit: 0 }, { capture: 't1' });
        const t1 = ['--token', '{token:t1}'];
        await d.expect(['decide', 'r.db', ...t1], { exit: 2, error: 'argument_error' });
        await d.expect(['decide', 'r.db', ...t1, '--decision', 'Accepted'], { exit: 2, error: 'argument_error' });
        await d.expect(['decide', 'r.db', ...t1, '--decision', 'accept'], { exit: 2, error: 'argument_error' });
        // "--c" could be --category or --claim-json
        await d.expect(['decide', 'r.db', ...t1, '--decision', 'corrected', '--c', '請求'], { exit: 2, error: 'argument_error' });
        await d.expect(['decide', 'r.db', ...t1, '--decision', 'corrected'], { exit: 2, error: 'category_required' });
        await d.expect(['decide', 'r.db', ...t1, '--decision', 'accepted', '--category', '請求'], {
          exit: 2,
          error: 'unexpected_category',
        });
        await d.expect(['decide', 'r.db', ...t1, '--decision', 'rejected', '--category', ''], { exit: 2, error: 'unexpected_category' });
        await d.expect(['decide', 'r.db', ...t1, '--decision', 'corrected', '--category', ''], { exit: 2, error: 'invalid_text' });
        await d.expect(['decide', 'r.db', ...t1, '--decision', 'corrected', '--category', '未知'], { exit: 2, error: 'unknown_category' });
        await d.expect(['decide', 'r.db', ...t1, '--decision', 'corrected', '--category', '配送'], {
          exit: 2,
          error: 'category_unchanged',
        });
        // Order: token shape, then category arguments, then the database (file, token held, category).
        await d.expect(['decide', 'missing.db', '--token', 'bad', '--decision', 'corrected'], { exit: 2, error: 'invalid_token' });
        await d.expect(['decide', 'missing.db', '--token', 'B'.repeat(22), '--decision', 'corrected'], {
          exit: 2,
          error: 'category_required',
        });
        await d.expect(['decide', 'missing.db', '--token', 'B'.repeat(22), '--decision', 'accepted'], {
          exit: 2,
          error: 'database_not_found',
        });
        await d.expect(['decide', 'r.db', '--token', 'B'.repeat(22), '--decision', 'corrected', '--category', '未知'], {
          exit: 2,
          error: 'claim_not_found',
        });
        await d.expect(['decide', 'r.db', ...t1, '--decision', 'accepted'], {
          exit: 0,
          json: { batch_id: 'b', record_id: 'r1', status: 'accepted', final_category: '配送', reviewed_by: 'a' },
        });
        await d.expect(
          ['claim', 'r.db', '--reviewer', 'b'],
          { exit: 0, json: { record_id: 'r2', proposed_category: '請求' } },
          { capture: 't2' },
        );
        await d.expect(['decide', 'r.db', '--token', '{token:t2}', '--dec', 'corrected', '--cat', 'その他'], {
          exit: 0,
          json: { status: 'corrected', final_category: 'その他', reviewed_by: 'b' },
        });
        await d.expect(['claim', 'r.db', '--reviewer', 'c'], { exit: 0 }, { capture: 't3' });
        await d.expect(['decide', 'r.db', '--decision=rejected', '--token', '{token:t3}'], {
          exit: 0,
          json: { status: 'rejected', final_category: null },
        });
        await d.expect(['show', 'r.db', '--batch-id', 'b', '--record-id', 'r2'], {
          exit: 0,
          json: { status: 'corrected', final_category: 'その他', reviewed_by: 'b', claim_state: 'not_applicable' },
        });
      }));

    it('show: unclaimed, active, decided; item_not_found; text rules', () =>
      scenario(async (d) => {
        await d.expect(add('b', 'r1'), { exit: 0 });
        await d.expect(['show', 'r.db', '--batch-id', 'b', '--record-id', 'r1'], {
          exit: 0,
          json: { claim_state: 'unclaimed', status: 'pending' },
        });
        await d.expect(['claim', 'r.db', '--reviewer', 'a'], { exit: 0 });
        await d.expect(['show', 'r.db', '--batch-id', 'b', '--record-id', 'r1'], {
          exit: 0,
          json: { claim_state: 'active', claimed_by: 'a' },
        });
        await d.expect(['show', 'r.db', '--batch-id', 'b', '--record-id', 'r2'], { exit: 2, error: 'item_not_found' });
        await d.expect(['show', 'r.db', '--batch-id', 'b ', '--record-id', 'r1'], { exit: 2, error: 'invalid_text' });
        await d.expect(['show', 'r.db', '--batch-id', 'b'], { exit: 2, error: 'argument_error' });
        await d.expect(['show', 'missing.db', '--batch-id', 'b', '--record-id', 'r1'], { exit: 2, error: 'database_not_found' });
      }));

    it('the parser itself: no command, unknown command, help, errors before help, extras', () =>
      scenario(async (d) => {
        await d.expect([], { exit: 2, error: 'argument_error' });
        await d.expect(['frobnicate', 'r.db'], { exit: 2, error: 'argument_error' });
        await d.expect(['--bogus', 'claim', 'r.db', '--reviewer', 'a'], { exit: 2, error: 'argument_error' });
        await d.expect(['-h'], { exit: 0 }, { help: true });
        await d.expect(['--he'], { exit: 0 }, { help: true });
        await d.expect(['claim', '--help'], { exit: 0 }, { help: true });
        await d.expect(['decide', 'r.db', '--h'], { exit: 0 }, { help: true });
        await d.expect(['claim', 'r.db', '--help', '--lease-seconds', '5'], { exit: 0 }, { help: true });
        await d.expect(['claim', 'r.db', '--lease-seconds', '5', '--help'], { exit: 2, error: 'argument_error' });
        await d.expect(['claim', 'r.db', '-hx'], { exit: 2, error: 'argument_error' });
        await d.expect(['claim', 'r.db', '--help=yes'], { exit: 2, error: 'argument_error' });
        await d.expect(['claim', 'r.db', '--reviewer'], { exit: 2, error: 'argument_error' });
        await d.expect(['claim', 'r.db', '--reviewer', 'a', 'extra'], { exit: 2, error: 'argument_error' });
        await d.expect(['--', 'claim', 'r.db', '--reviewer', 'a'], { exit: 2, error: 'argument_error' });
        await d.expect(['show', 'r.db', '--batch-id', 'b', '--record-id', 'r', '--'], { exit: 2, error: 'argument_error' });
      }));
  });

  it('Ctrl+C while waiting on a claim file (a FIFO with no data yet): interrupted, exit 130', () =>
    scenario(async (d) => {
      for (const impl of ['seed', 'leasehold'] as const) execFileSync('mkfifo', [path.join(d.dirs[impl], 'claim.fifo')]);
      const running = d.start(['release', 'r.db', '--claim-json', 'claim.fifo']);
      const writers: number[] = [];
      try {
        for (const impl of ['seed', 'leasehold'] as const) {
          const fifo = path.join(d.dirs[impl], 'claim.fifo');
          // Opening the write end without blocking succeeds only once the command has the FIFO open for reading.
          for (let attempt = 0; ; attempt++) {
            try {
              writers.push(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
              break;
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code !== 'ENXIO' || attempt > 1_000) throw error;
              await new Promise((resolve) => setTimeout(resolve, 10));
            }
          }
        }
        // Both are now blocked reading: interrupt them as Ctrl+C would.
        running.seed.child.kill('SIGINT');
        running.leasehold.child.kill('SIGINT');
        const [seedResult, ours] = await Promise.all([running.seed.done, running.leasehold.done]);
        expect(observe(ours)).toEqual(observe(seedResult));
        expect(ours.code).toBe(130);
        expect(jsonLines(ours.stderr)).toEqual([{ ok: false, error: 'interrupted', message: expect.any(String) }]);
      } finally {
        for (const fd of writers) closeSync(fd);
      }
    }));

  it('each refuses the other’s database as unsupported_schema', async () => {
    const d = Differential.create(seed.path);
    try {
      await d.expect(['init', 'r.db', ...CATEGORIES], { exit: 0 });
      // Swap the files: seed A's database in our folder and ours in seed A's.
      renameSync(path.join(d.dirs.seed, 'r.db'), path.join(d.dirs.seed, 'swap'));
      renameSync(path.join(d.dirs.leasehold, 'r.db'), path.join(d.dirs.seed, 'r.db'));
      renameSync(path.join(d.dirs.seed, 'swap'), path.join(d.dirs.leasehold, 'r.db'));
      await d.expect(['claim', 'r.db', '--reviewer', 'a'], { exit: 2, error: 'unsupported_schema' });
      await d.expect(add('b', 'r1'), { exit: 2, error: 'unsupported_schema' });
    } finally {
      d.cleanup();
    }
  });
});
