// `leasehold import DB FILE`: bulk-adds items from JSON Lines or CSV. Every line is checked with the
// domain's own rules and each bad one is reported with its line number; good lines go to the
// addItems service in chunks, one transaction each, so a chunk is either wholly in or not at all.
// Items already in the database come back as DUPLICATE_ITEM and are counted as skipped: running the
// same import again after an interruption finishes the job without adding anything twice.
import { constants, createReadStream, openSync, type Stats, statSync } from 'node:fs';
import { Socket } from 'node:net';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { DomainError } from '../domain/errors.js';
import { LIMITS, validateText } from '../domain/validation.js';
import { addItems, type NewItem } from '../services/items.js';
import type { Namespace } from './argparse.js';
import { cliActor, type OpenDatabase, openExisting, openPostgres, postgresLocation, shownDatabase } from './database.js';
import { ImportPace } from './import-pace.js';
import { type Counts, Progress } from './import-progress.js';
import { CliError, EXIT, emitFailure, jsonLine, seedCode, toCliError } from './output.js';
import { pythonPath } from './python.js';

type Format = 'jsonl' | 'csv';

interface LineError {
  code: string;
  field: string | null;
  message: string;
}

interface Parsed {
  line: number;
  item: NewItem;
}

/** The four fields, their snake_case (seed A) and camelCase (GraphQL) names, and their length limits. */
const FIELDS = [
  { key: 'batchId', snake: 'batch_id', limit: LIMITS.batchId },
  { key: 'recordId', snake: 'record_id', limit: LIMITS.recordId },
  { key: 'proposedCategory', snake: 'proposed_category', limit: LIMITS.category },
  { key: 'reason', snake: 'reason', limit: LIMITS.reason },
] as const;

class LineRejected extends Error {
  constructor(readonly detail: LineError) {
    super(detail.message);
  }
}

function reject(code: string, field: string | null, message: string): never {
  throw new LineRejected({ code, field, message });
}

/** Builds a validated item from named values (a JSON object, or a CSV row keyed by its header). */
function toItem(values: Record<string, unknown>): NewItem {
  const item: Partial<Record<(typeof FIELDS)[number]['key'], string>> = {};
  for (const field of FIELDS) {
    const snake = Object.hasOwn(values, field.snake) ? values[field.snake] : undefined;
    const camel = field.snake !== field.key && Object.hasOwn(values, field.key) ? values[field.key] : undefined;
    if (snake !== undefined && camel !== undefined && snake !== camel) {
      reject('invalid_line', field.snake, `Both ${field.snake} and ${field.key} are given, with different values.`);
    }
    const value = snake ?? camel;
    if (value === undefined || value === null) reject('missing_field', field.snake, `${field.snake} is missing.`);
    if (typeof value !== 'string') reject('invalid_field', field.snake, `${field.snake} must be a string.`);
    try {
      item[field.key] = validateText(value, field.snake, field.limit);
    } catch (error) {
      if (error instanceof DomainError) reject(seedCode(error.code), field.snake, error.message);
      throw error;
    }
  }
  return item as NewItem;
}

function parseJsonLine(text: string): NewItem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    reject('invalid_line', null, `Not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) reject('invalid_line', null, 'Each line must be a JSON object.');
  return toItem(value as Record<string, unknown>);
}

/** One RFC 4180 record: its fields, or 'incomplete' while a quoted field is still open. */
function parseCsvRecord(text: string): string[] | 'incomplete' {
  const fields: string[] = [];
  let index = 0;
  for (;;) {
    if (text[index] === '"') {
      let value = '';
      index += 1;
      for (;;) {
        if (index >= text.length) return 'incomplete';
        const char = text[index] as string;
        if (char === '"') {
          if (text[index + 1] === '"') {
            value += '"';
            index += 2;
            continue;
          }
          index += 1;
          break;
        }
        value += char;
        index += 1;
      }
      fields.push(value);
      if (index === text.length) return fields;
      if (text[index] !== ',') reject('invalid_line', null, 'A quoted CSV field must be followed by a comma or the end of the line.');
      index += 1;
    } else {
      const end = text.indexOf(',', index);
      const raw = end < 0 ? text.slice(index) : text.slice(index, end);
      if (raw.includes('"')) reject('invalid_line', null, 'A quote inside an unquoted CSV field.');
      fields.push(raw);
      if (end < 0) return fields;
      index = end + 1;
    }
  }
}

/** The column of each field, from the header row (other columns are ignored). */
function csvColumns(header: string[]): Map<string, number> {
  const columns = new Map<string, number>();
  header.forEach((name, index) => {
    const field = FIELDS.find((candidate) => candidate.snake === name.trim() || candidate.key === name.trim());
    if (!field) return;
    if (columns.has(field.snake)) throw new CliError('invalid_header', `The CSV header names ${field.snake} twice.`);
    columns.set(field.snake, index);
  });
  const missing = FIELDS.filter((field) => !columns.has(field.snake)).map((field) => field.snake);
  if (missing.length > 0) throw new CliError('invalid_header', `The CSV header must name ${missing.join(', ')}.`);
  return columns;
}

/** One line of the input: its text (or why it cannot be read) and how many bytes it took, newline included. */
interface InputLine {
  text: string | LineError;
  bytes: number;
}

/** Splits a byte stream into lines at "\n" (a "\r" before it is dropped), each decoded as strict UTF-8. */
async function* readLines(stream: AsyncIterable<Buffer>): AsyncGenerator<InputLine> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const decode = (bytes: Buffer, newline: number): InputLine => {
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    try {
      return { text: decoder.decode(bytes.subarray(0, end)), bytes: bytes.length + newline };
    } catch {
      return { text: { code: 'invalid_line', field: null, message: 'The line is not valid UTF-8.' }, bytes: bytes.length + newline };
    }
  };
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of stream) {
    let data = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    let newline = data.indexOf(0x0a);
    while (newline >= 0) {
      yield decode(data.subarray(0, newline), 1);
      data = data.subarray(newline + 1);
      newline = data.indexOf(0x0a);
    }
    rest = Buffer.from(data);
  }
  if (rest.length > 0) yield decode(rest, 0);
}

function formatOf(file: string, given: string | null): Format | null {
  if (given === 'jsonl' || given === 'csv') return given;
  const extension = path.extname(file).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.jsonl' || extension === '.ndjson' || extension === '.json') return 'jsonl';
  return null;
}

/**
 * The input as a byte stream. A pipe or FIFO (`… | leasehold import DB /dev/stdin`) is read through
 * a socket, so waiting for its writer never blocks a thread that Ctrl+C could not interrupt.
 */
function openInput(file: string): { stream: Readable; size: number | null } {
  let kind: Stats;
  let fd: number;
  try {
    kind = statSync(file);
    const stream = kind.isFIFO() || kind.isSocket();
    fd = openSync(file, stream ? constants.O_RDONLY | constants.O_NONBLOCK : constants.O_RDONLY);
    if (stream) return { stream: new Socket({ fd, readable: true, writable: false }), size: null };
  } catch (error) {
    throw new CliError('import_file_error', `Cannot read ${file}: ${(error as Error).message}`);
  }
  return { stream: createReadStream('', { fd, highWaterMark: 256 * 1024 }), size: kind.isFile() && kind.size > 0 ? kind.size : null };
}

export async function runImport(args: Namespace): Promise<number> {
  const file = args.file as string;
  let deps: OpenDatabase;
  let input: ReturnType<typeof openInput>;
  let database = args.db as string;
  try {
    input = openInput(file);
    try {
      // A postgresql:// URL in place of the file imports into that database (issue 18).
      const postgres = await postgresLocation(database);
      if (postgres) {
        database = await shownDatabase(postgres);
        deps = await openPostgres(postgres);
      } else {
        database = pythonPath(database);
        deps = await openExisting(database);
      }
    } catch (error) {
      input.stream.destroy();
      throw error;
    }
  } catch (error) {
    const failure = toCliError(error);
    await emitFailure(failure.code, failure.message);
    return failure.exitCode;
  }

  const chosen = args.progress === 'auto' ? (process.stderr.isTTY ? 'bar' : 'lines') : (args.progress as 'bar' | 'lines' | 'none');
  const progress = new Progress(chosen, input.size);
  const pace = new ImportPace({ maxChunk: args.chunk_size as number });
  const actor = cliActor();
  const counts: Counts = { lines: 0, imported: 0, skipped: 0, failed: 0 };
  const seen = new Map<string, number>();
  let format = formatOf(file, args.format as string | null);
  const pending: Parsed[] = [];
  let committedThrough = 0;

  let interrupted = false;
  // The first Ctrl+C stops reading (a chunk being committed still commits) and reports how far the
  // import got; a second one exits at once.
  const onInterrupt = () => {
    if (interrupted) process.exit(EXIT.interrupted);
    interrupted = true;
    input.stream.destroy();
  };
  process.on('SIGINT', onInterrupt);

  const fail = (line: number, detail: LineError) => {
    counts.failed += 1;
    progress.log(jsonLine({ ok: false, error: detail.code, message: detail.message, line, field: detail.field }));
  };

  // Commits what is pending, one chunk at a time: a chunk gathered at full size is split into turns
  // when another writer has just appeared (see import-pace.ts).
  const flush = async () => {
    while (pending.length > 0) await commitChunk();
  };
  const commitChunk = async () => {
    await pace.beforeChunk(deps.db.othersCommitted());
    const batch = pending.splice(0, pace.chunkSize());
    const started = performance.now();
    const outcomes = await addItems(
      deps,
      actor,
      batch.map((entry) => entry.item),
    );
    pace.afterChunk(batch.length, performance.now() - started);
    outcomes.forEach((outcome, index) => {
      const entry = batch[index] as Parsed;
      if (outcome.ok) counts.imported += 1;
      else if (outcome.error.code === 'DUPLICATE_ITEM') counts.skipped += 1;
      else {
        const field = outcome.error.field?.replace(/^items\[\d+\]\./, '') ?? null;
        const snake = FIELDS.find((candidate) => candidate.key === field)?.snake ?? field;
        fail(entry.line, { code: seedCode(outcome.error.code), field: snake, message: outcome.error.message });
      }
    });
    committedThrough = (batch[batch.length - 1] as Parsed).line;
    progress.update(counts, true);
  };

  const accept = (line: number, item: NewItem) => {
    const key = `${item.batchId}\u0000${item.recordId}`;
    const first = seen.get(key);
    if (first !== undefined) {
      fail(line, { code: 'duplicate_item', field: 'record_id', message: `(${item.batchId}, ${item.recordId}) repeats line ${first}.` });
      return;
    }
    seen.set(key, line);
    pending.push({ line, item });
  };

  let header: { columns: Map<string, number>; width: number } | null = null;
  let record: { start: number; text: string } | null = null;
  const handleCsv = (line: number, text: string) => {
    const start = record?.start ?? line;
    const joined = record ? `${record.text}\n${text}` : text;
    record = null;
    if (joined === '') return;
    let fields: string[] | 'incomplete';
    try {
      fields = parseCsvRecord(joined);
    } catch (error) {
      if (!(error instanceof LineRejected)) throw error;
      if (header === null) throw new CliError('invalid_header', `The CSV header row cannot be read: ${error.message}`);
      counts.lines += 1;
      fail(start, error.detail);
      return;
    }
    if (fields === 'incomplete') {
      record = { start, text: joined };
      return;
    }
    if (header === null) {
      header = { columns: csvColumns(fields), width: fields.length };
      return;
    }
    counts.lines += 1;
    try {
      if (fields.length !== header.width) {
        reject('invalid_line', null, `The header has ${header.width} columns; this row has ${fields.length}.`);
      }
      const values: Record<string, string> = {};
      for (const [name, index] of header.columns) values[name] = fields[index] as string;
      accept(start, toItem(values));
    } catch (error) {
      if (!(error instanceof LineRejected)) throw error;
      fail(start, error.detail);
    }
  };

  const reportInterrupted = async () => {
    const message = `Interrupted after line ${committedThrough}: everything up to it is committed. Run the same import again to finish; what is there is skipped.`;
    await emitFailure('interrupted', message, { ...counts, line: committedThrough });
    return EXIT.interrupted;
  };

  let lineNumber = 0;
  try {
    for await (const line of readLines(input.stream)) {
      lineNumber += 1;
      progress.addBytes(line.bytes);
      const decoded = line.text;
      if (typeof decoded !== 'string') {
        counts.lines += 1;
        fail(lineNumber, decoded);
        continue;
      }
      const text = lineNumber === 1 ? decoded.replace(/^\uFEFF/, '') : decoded;
      if (format === null) {
        if (text.trim() === '') continue;
        format = text.trimStart().startsWith('{') ? 'jsonl' : 'csv';
      }
      if (format === 'csv') handleCsv(lineNumber, text);
      else if (text.trim() !== '') {
        counts.lines += 1;
        try {
          accept(lineNumber, parseJsonLine(text));
        } catch (error) {
          if (!(error instanceof LineRejected)) throw error;
          fail(lineNumber, error.detail);
        }
      }
      if (pending.length >= pace.chunkSize()) await flush();
      else progress.update(counts, false);
      if (interrupted) break;
    }
    if (!interrupted) {
      const open = record as { start: number } | null;
      if (open !== null) {
        counts.lines += 1;
        fail(open.start, { code: 'invalid_line', field: null, message: 'A quoted CSV field is never closed.' });
      }
      if (format === 'csv' && header === null) throw new CliError('invalid_header', 'The CSV file has no header row.');
      await flush();
    }
  } catch (error) {
    progress.finish();
    process.off('SIGINT', onInterrupt);
    await deps.close();
    // Reading ends with an error when Ctrl+C closed the input: that is the interruption, reported below.
    if (interrupted) return reportInterrupted();
    const failure = toCliError(error);
    await emitFailure(failure.code, failure.message, { ...counts, line: committedThrough });
    return failure.exitCode;
  }
  progress.finish();
  await deps.close();
  process.off('SIGINT', onInterrupt);

  if (interrupted) return reportInterrupted();
  const summary = { ok: counts.failed === 0, database, file, ...counts };
  await new Promise<void>((resolve) => process.stdout.write(jsonLine(summary), () => resolve()));
  return counts.failed === 0 ? EXIT.ok : EXIT.rejected;
}
