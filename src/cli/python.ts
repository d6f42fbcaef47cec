// The few Python behaviours seed A's command line gets for free and scripts can observe: how
// pathlib spells a path, what int() accepts, and what json.loads accepts beyond strict JSON.

/**
 * `str(pathlib.Path(value))` on POSIX: repeated slashes collapse, "." parts and a trailing slash
 * go, exactly two leading slashes stay two, and the empty path is ".". (So "db.sqlite/" names the
 * file db.sqlite, as it does for seed A.)
 */
export function pythonPath(value: string): string {
  let rest = value;
  let root = '';
  if (rest.startsWith('/')) {
    const stripped = rest.replace(/^\/+/, '');
    root = rest.length - stripped.length === 2 ? '//' : '/';
    rest = stripped;
  }
  const parts = rest.split('/').filter((part) => part !== '' && part !== '.');
  const joined = root + parts.join('/');
  return joined === '' ? '.' : joined;
}

/** Exactly the characters Python's str.isspace() accepts (int() skips them around the number). */
const PYTHON_SPACE = /[\t\n\v\f\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;
const DECIMAL_DIGIT = /\p{Nd}/u;

/**
 * The value of a Unicode decimal digit. Every Nd run in Unicode is exactly ten code points, 0 to 9,
 * and runs that touch are whole runs, so the position within the contiguous stretch gives the value.
 */
function digitValue(codePoint: number): number {
  let start = codePoint;
  while (start > 0 && DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start -= 1;
  return (codePoint - start) % 10;
}

/**
 * Python's `int(text)` for a base-10 string, or null where Python raises ValueError: surrounding
 * whitespace, a sign, any Unicode decimal digits, single underscores between digits ("1_000").
 */
export function pythonInt(text: string): number | null {
  let ascii = '';
  for (const char of text) {
    if (PYTHON_SPACE.test(char)) ascii += ' ';
    else if (DECIMAL_DIGIT.test(char)) ascii += String(digitValue(char.codePointAt(0) as number));
    else ascii += char;
  }
  const match = /^ *([+-]?)(\d+(?:_\d+)*) *$/.exec(ascii);
  if (!match) return null;
  const digits = (match[2] as string).replaceAll('_', '');
  // Beyond 2^53 the exact value no longer matters: every caller range-checks far below it.
  const magnitude = digits.length > 15 ? Number.MAX_SAFE_INTEGER : Number(digits);
  return match[1] === '-' ? -magnitude : magnitude;
}

/**
 * `json.loads(text)`: strict JSON plus the NaN, Infinity and -Infinity literals Python also
 * accepts. Those are turned into null outside strings before parsing, which keeps every other
 * verdict identical (they are only valid where a value is). Throws SyntaxError like JSON.parse.
 */
export function pythonJsonLoads(text: string): unknown {
  let out = '';
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === '"') {
      // Copy the string literal as it is, escapes included.
      let end = index + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      out += text.slice(index, end + 1);
      index = end + 1;
      continue;
    }
    const literal = ['-Infinity', 'Infinity', 'NaN'].find((candidate) => text.startsWith(candidate, index));
    if (literal) {
      out += 'null';
      index += literal.length;
      continue;
    }
    out += char;
    index += 1;
  }
  return JSON.parse(out);
}
