// Test helpers for sequencing concurrent work by hand, without timers.

/** A promise plus the function that resolves it: lets a test decide when work may go on. */
export function gate<T = void>(): { promise: Promise<T>; open(value: T): void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** A category row for direct writes in database tests. */
export const categoryRow = (name: string) => ({ name, createdAt: new Date(Date.UTC(2026, 10, 30)), createdBy: 'test' });
