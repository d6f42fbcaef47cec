// Current value against proposed value, as an approver reads it: both pretty-printed as JSON and compared line by
// line (longest common subsequence), each line marked with a sign and a word as well as a colour.
import { el } from '../shared/dom.js';

export type DiffLine = { kind: 'same' | 'removed' | 'added'; text: string };

const pretty = (value: unknown): string[] =>
  value === undefined || value === null ? ['(none)'] : JSON.stringify(value, null, 2).split('\n');

/** The lines of `before` and `after`, in order, each kept, removed or added. */
export function lineDiff(before: readonly string[], after: readonly string[]): DiffLine[] {
  const rows = before.length;
  const columns = after.length;
  // A value of thousands of lines is shown whole on each side rather than compared (the table would be rows × columns).
  if (rows * columns > 250_000) {
    return [...before.map((text) => ({ kind: 'removed' as const, text })), ...after.map((text) => ({ kind: 'added' as const, text }))];
  }
  // common(i, j): the longest common subsequence of before[i..] and after[j..], in one flat array.
  const lengths = new Uint32Array((rows + 1) * (columns + 1));
  const common = (i: number, j: number) => lengths[i * (columns + 1) + j] ?? 0;
  for (let i = rows - 1; i >= 0; i--) {
    for (let j = columns - 1; j >= 0; j--) {
      lengths[i * (columns + 1) + j] = before[i] === after[j] ? common(i + 1, j + 1) + 1 : Math.max(common(i + 1, j), common(i, j + 1));
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < rows || j < columns) {
    if (i < rows && j < columns && before[i] === after[j]) {
      lines.push({ kind: 'same', text: before[i++] as string });
      j++;
    } else if (i < rows && (j === columns || common(i + 1, j) >= common(i, j + 1))) {
      // On a tie the current line goes first, as diffs read: what goes, then what comes.
      lines.push({ kind: 'removed', text: before[i++] as string });
    } else {
      lines.push({ kind: 'added', text: after[j++] as string });
    }
  }
  return lines;
}

const SIGNS = { same: ' ', removed: '−', added: '+' } as const;
const WORDS = { same: 'unchanged', removed: 'current only', added: 'proposed' } as const;

/** The diff as a list: the sign and a visually hidden word say what colour says. */
export function renderDiff(current: unknown, proposed: unknown): HTMLElement {
  const list = el('ol', 'diff-lines');
  for (const line of lineDiff(pretty(current), pretty(proposed))) {
    const item = el('li', `diff-${line.kind}`);
    item.append(
      el('span', 'diff-sign', SIGNS[line.kind]),
      el('span', 'visually-hidden', `${WORDS[line.kind]}: `),
      el('code', undefined, line.text),
    );
    list.append(item);
  }
  return list;
}
