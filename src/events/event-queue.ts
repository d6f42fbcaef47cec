// A first-in first-out queue with O(1) push and shift (a growable ring), for per-subscriber buffers.

export class Queue<T> {
  private items: (T | undefined)[] = new Array(16);
  private head = 0;
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.count === this.items.length) this.grow();
    this.items[(this.head + this.count) & (this.items.length - 1)] = item;
    this.count++;
  }

  /** The oldest item, removed; undefined when empty. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[this.head];
    // Let the item go: a subscriber's buffer must not keep delivered events alive.
    this.items[this.head] = undefined;
    this.head = (this.head + 1) & (this.items.length - 1);
    this.count--;
    return item;
  }

  clear(): void {
    this.items = new Array(16);
    this.head = 0;
    this.count = 0;
  }

  /** Doubles the ring (its size stays a power of two, so positions wrap with a mask). */
  private grow(): void {
    const larger: (T | undefined)[] = new Array(this.items.length * 2);
    for (let index = 0; index < this.count; index++) larger[index] = this.items[(this.head + index) & (this.items.length - 1)];
    this.items = larger;
    this.head = 0;
  }
}
