// Counts turns of the event loop (one setImmediate after another) while started: a test reads `turns`
// before and after some work to see whether other work got a turn in between.
export class TurnCounter {
  turns = 0;
  /** The chain of immediates counting now (0: none); a chain left over from before a stop ends itself. */
  private chain = 0;
  private chains = 0;

  /** Starts counting from the next turn; again after a stop, it goes on from where it stood. */
  start(): void {
    if (this.chain !== 0) return;
    const chain = ++this.chains;
    this.chain = chain;
    const count = () => {
      if (this.chain !== chain) return;
      this.turns++;
      setImmediate(count);
    };
    setImmediate(count);
  }

  stop(): void {
    this.chain = 0;
  }
}
