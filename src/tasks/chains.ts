// Per-key ordering for the session store: operations on one key run one at a time in call order,
// operations on different keys run freely. It owns only the chains; it never looks at what runs.

export class KeyedChains {
  readonly #tails = new Map<string, Promise<void>>();
  readonly #pending = new Set<Promise<void>>();

  /** Runs `fn` after every earlier operation on the same key has settled (failed ones included). */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.#tails.get(key);
    const run = prev === undefined ? fn() : prev.then(fn);
    const tail = run.then(() => {}, () => {});
    this.#tails.set(key, tail);
    this.#pending.add(tail);
    void tail.then(() => {
      this.#pending.delete(tail);
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return run;
  }

  /** Whether nothing runs or waits on this key: an operation started now would run at once. */
  isFree(key: string): boolean { return !this.#tails.has(key); }

  /** Resolves once nothing is running or queued, including work queued while waiting. */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }
}
