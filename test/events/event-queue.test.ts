// The per-subscriber buffer's queue: first in, first out across wrap-arounds and growth.
import { describe, expect, it } from 'vitest';
import { Queue } from '../../src/events/event-queue.js';

describe('Queue', () => {
  it('gives items back in the order they came, across wrap-arounds and growth', () => {
    const queue = new Queue<number>();
    const model: number[] = [];
    let next = 0;
    // Pushes outrun shifts unevenly, so the ring both wraps and grows many times.
    for (let round = 0; round < 2_000; round++) {
      for (let n = 0; n < (round % 7) + 1; n++) {
        queue.push(next);
        model.push(next++);
      }
      for (let n = 0; n < round % 5; n++) expect(queue.shift()).toBe(model.shift());
      expect(queue.length).toBe(model.length);
    }
    while (model.length > 0) expect(queue.shift()).toBe(model.shift());
    expect(queue.shift()).toBeUndefined();
    expect(queue.length).toBe(0);
  });

  it('is empty after clear and usable again', () => {
    const queue = new Queue<string>();
    for (const item of ['a', 'b', 'c']) queue.push(item);
    queue.clear();
    expect(queue.length).toBe(0);
    expect(queue.shift()).toBeUndefined();
    queue.push('d');
    expect(queue.shift()).toBe('d');
  });
});
