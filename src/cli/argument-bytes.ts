// Command-line arguments are bytes. Node decodes them as UTF-8 and silently puts U+FFFD wherever they
// are not (a lone surrogate written as WTF-8 or CESU-8, Latin-1 text), so two different ids would be
// stored alike; seed A crashes on them (UnicodeEncodeError). Where the raw bytes can be read (Linux:
// /proc/self/cmdline), text taken from such an argument is refused like any other ill-formed text.
import { readFileSync } from 'node:fs';
import { DomainError } from '../domain/errors.js';
import { validateText } from '../domain/validation.js';

let illFormed: string[] | null = null;

/** Each of this process's arguments that was not UTF-8, as Node decoded it; none where the bytes cannot be read. */
function illFormedArguments(): string[] {
  if (illFormed) return illFormed;
  illFormed = [];
  let raw: Buffer;
  try {
    raw = readFileSync('/proc/self/cmdline');
  } catch {
    return illFormed;
  }
  const parts: Buffer[] = [];
  for (let start = 0; start < raw.length; ) {
    const end = raw.indexOf(0, start);
    parts.push(raw.subarray(start, end < 0 ? raw.length : end));
    start = end < 0 ? raw.length : end + 1;
  }
  // process.argv is [node, script, ...arguments]; the command line may hold Node's own options before the script.
  const given = process.argv.slice(2);
  const bytes = parts.slice(parts.length - given.length);
  if (given.length === 0 || bytes.length !== given.length || bytes.some((part, index) => part.toString('utf8') !== given[index])) {
    return illFormed;
  }
  const strict = new TextDecoder('utf-8', { fatal: true });
  for (const [index, part] of bytes.entries()) {
    try {
      strict.decode(part);
    } catch {
      illFormed.push(given[index] as string);
    }
  }
  return illFormed;
}

/** Text from a command-line argument: the domain's rule, and bytes that were UTF-8 (`--name value` or `--name=value`). */
export function argumentText(value: string, field: string, maxLength: number): string {
  if (value.includes('\uFFFD') && illFormedArguments().some((argument) => argument === value || argument.endsWith(`=${value}`))) {
    throw new DomainError('INVALID_TEXT', `${field} must be well-formed UTF-8: the argument's bytes are not.`, field);
  }
  return validateText(value, field, maxLength);
}
