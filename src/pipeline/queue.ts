// A bounded async FIFO between two pipeline stages. Owns only its buffer and waiters; it knows
// nothing about messages. Producers await `push` when full (that is the backpressure path).

/**
 * How it works: items live in a ring of fixed capacity. `push` resolves at once while there is
 * room, otherwise it parks the producer with its item; each freed slot goes to the oldest parked
 * item, so waiting producers keep their turn. `shift` resolves with the
 * next item, parking the consumer while empty; after `close()` it drains the rest, then yields
 * `undefined`. `tryPush` never waits: it reports false when full (for sources that must not block).
 */
export class AsyncQueue<T> {
  readonly #ring: (T | undefined)[];
  #head = 0;
  #size = 0;
  #closed = false;
  readonly #consumers: ((item: T | undefined) => void)[] = [];
  /** Producers waiting for room, each with its item, in arrival order (they keep their turn). */
  readonly #parked: { item: T; resolve(): void; reject(e: Error): void }[] = [];

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new TypeError(`AsyncQueue capacity must be a positive integer, got ${capacity}`);
    this.#ring = new Array<T | undefined>(capacity);
  }

  get size(): number { return this.#size; }
  get closed(): boolean { return this.#closed; }

  /** Adds an item, waiting while the queue is full. Throws after close. */
  push(item: T): Promise<void> {
    if (this.tryPush(item)) return Promise.resolve();
    if (this.#closed) return Promise.reject(new Error('AsyncQueue is closed'));
    return new Promise((resolve, reject) => this.#parked.push({ item, resolve, reject }));
  }

  /** Adds an item if there is room now; false when full or closed. */
  tryPush(item: T): boolean {
    if (this.#closed || this.#size >= this.capacity || this.#parked.length > 0) return false;
    const consumer = this.#consumers.shift();
    if (consumer) { consumer(item); return true; }
    this.#ring[(this.#head + this.#size) % this.capacity] = item;
    this.#size++;
    return true;
  }

  /** Next item; undefined once the queue is closed and drained. */
  shift(): Promise<T | undefined> {
    if (this.#size > 0) {
      const item = this.#ring[this.#head];
      this.#ring[this.#head] = undefined;
      this.#head = (this.#head + 1) % this.capacity;
      this.#size--;
      this.#refill();
      return Promise.resolve(item);
    }
    if (this.#closed) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#consumers.push(resolve));
  }

  /** Removes and returns up to `max` items that are already queued, without waiting. */
  takeAvailable(max: number): T[] {
    const out: T[] = [];
    while (this.#size > 0 && out.length < max) {
      out.push(this.#ring[this.#head] as T);
      this.#ring[this.#head] = undefined;
      this.#head = (this.#head + 1) % this.capacity;
      this.#size--;
    }
    for (let i = out.length; i > 0; i--) this.#refill();
    return out;
  }

  /** No more pushes; consumers drain what is left, then get undefined. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const consumer of this.#consumers.splice(0)) consumer(undefined);
    for (const p of this.#parked.splice(0)) p.reject(new Error('AsyncQueue is closed'));
  }

  /** A slot was freed: the oldest parked producer's item takes it. */
  #refill(): void {
    const p = this.#parked.shift();
    if (!p) return;
    this.#ring[(this.#head + this.#size) % this.capacity] = p.item;
    this.#size++;
    p.resolve();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      const item = await this.shift();
      if (item === undefined) return;
      yield item;
    }
  }
}
