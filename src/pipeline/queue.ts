// A bounded async FIFO between two pipeline stages. Owns only its buffer and waiters; it knows
// nothing about messages. Producers await `push` when full (that is the backpressure path).

/** Optional second bound: items also have a weight (bytes, for the pipeline) and the total is capped. */
export interface QueueWeights<T> {
  /** Largest total weight held at once; one item heavier than this is still admitted into an empty queue. */
  maxWeight: number;
  /** The weight of one item (a non-negative number; called once per item). */
  weigh(item: T): number;
}

/**
 * How it works: items live in a ring of fixed capacity. An item fits when there is a free slot
 * and, with weights, the total stays within `maxWeight` — or the queue is empty, so one item
 * larger than the bound still passes alone instead of blocking for ever. `push` resolves at once
 * when the item fits, otherwise it parks the producer with its item; whenever items leave, the
 * oldest parked items are admitted while they fit, so waiting producers keep their turn. `shift`
 * resolves with the next item, parking the consumer while empty; after `close()` it drains the
 * rest, then yields `undefined`. `tryPush` never waits: it reports false when the item does not
 * fit (for sources that must not block).
 */
export class AsyncQueue<T> {
  readonly #ring: (T | undefined)[];
  readonly #weights: number[];
  readonly #bound: QueueWeights<T> | null;
  #head = 0;
  #size = 0;
  #weight = 0;
  #closed = false;
  readonly #consumers: ((item: T | undefined) => void)[] = [];
  /** Producers waiting for room, each with its item, in arrival order (they keep their turn). */
  readonly #parked: { item: T; weight: number; resolve(): void; reject(e: Error): void }[] = [];

  constructor(readonly capacity: number, weights?: QueueWeights<T>) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new TypeError(`AsyncQueue capacity must be a positive integer, got ${capacity}`);
    if (weights !== undefined && !(weights.maxWeight > 0)) throw new TypeError(`AsyncQueue maxWeight must be positive, got ${weights.maxWeight}`);
    this.#ring = new Array<T | undefined>(capacity);
    this.#weights = weights ? new Array<number>(capacity).fill(0) : [];
    this.#bound = weights ?? null;
  }

  get size(): number { return this.#size; }
  /** Total weight of the items held (0 without weights). */
  get weight(): number { return this.#weight; }
  get closed(): boolean { return this.#closed; }

  /** Adds an item, waiting while it does not fit. Throws after close. */
  push(item: T): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('AsyncQueue is closed'));
    const weight = this.#weigh(item);
    if (this.#parked.length === 0 && this.#fits(weight)) { this.#add(item, weight); return Promise.resolve(); }
    return new Promise((resolve, reject) => this.#parked.push({ item, weight, resolve, reject }));
  }

  /** Adds an item if it fits now; false when it does not or the queue is closed. */
  tryPush(item: T): boolean {
    if (this.#closed || this.#parked.length > 0) return false;
    const weight = this.#weigh(item);
    if (!this.#fits(weight)) return false;
    this.#add(item, weight);
    return true;
  }

  /** Next item; undefined once the queue is closed and drained. */
  shift(): Promise<T | undefined> {
    if (this.#size > 0) {
      const item = this.#remove();
      this.#admitParked();
      return Promise.resolve(item);
    }
    if (this.#closed) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#consumers.push(resolve));
  }

  /** The next item if one is queued now (no promise, no wait); undefined when the queue is empty. */
  poll(): T | undefined {
    if (this.#size === 0) return undefined;
    const item = this.#remove();
    this.#admitParked();
    return item;
  }

  /**
   * Removes and returns, without waiting, queued items while there are fewer than `max` and
   * (with weights) their total weight stays within `maxWeight`.
   */
  takeAvailable(max: number, maxWeight = Number.POSITIVE_INFINITY): T[] {
    const out: T[] = [];
    let taken = 0;
    while (this.#size > 0 && out.length < max) {
      const w = this.#bound ? this.#weights[this.#head]! : 0;
      if (taken + w > maxWeight) break;
      taken += w;
      out.push(this.#remove());
    }
    if (out.length > 0) this.#admitParked();
    return out;
  }

  /** No more pushes; consumers drain what is left, then get undefined. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const consumer of this.#consumers.splice(0)) consumer(undefined);
    for (const p of this.#parked.splice(0)) p.reject(new Error('AsyncQueue is closed'));
  }

  #weigh(item: T): number {
    return this.#bound ? this.#bound.weigh(item) : 0;
  }

  #fits(weight: number): boolean {
    if (this.#size === 0) return true;
    return this.#size < this.capacity && (this.#bound === null || this.#weight + weight <= this.#bound.maxWeight);
  }

  /** Stores an item that fits; a waiting consumer takes it directly instead. */
  #add(item: T, weight: number): void {
    const consumer = this.#consumers.shift();
    if (consumer) { consumer(item); return; }
    const slot = (this.#head + this.#size) % this.capacity;
    this.#ring[slot] = item;
    if (this.#bound) this.#weights[slot] = weight;
    this.#size++;
    this.#weight += weight;
  }

  #remove(): T {
    const item = this.#ring[this.#head] as T;
    this.#ring[this.#head] = undefined;
    if (this.#bound) { this.#weight -= this.#weights[this.#head]!; this.#weights[this.#head] = 0; }
    this.#head = (this.#head + 1) % this.capacity;
    this.#size--;
    return item;
  }

  /** Items left: the oldest parked items take the room, in order, while they fit. */
  #admitParked(): void {
    while (this.#parked.length > 0 && this.#fits(this.#parked[0]!.weight)) {
      const p = this.#parked.shift()!;
      this.#add(p.item, p.weight);
      p.resolve();
    }
  }

  /**
   * The items in order until the queue is closed. Not a generator: a suspended generator keeps the
   * last item it yielded in its saved registers until the next one arrives, so an idle session
   * held its last answer (6 MB, in the unread-answer bench) for as long as it lived.
   */
  [Symbol.asyncIterator](): AsyncIterator<T, undefined> {
    return {
      next: async (): Promise<IteratorResult<T, undefined>> => {
        const value = await this.shift();
        return value === undefined ? { done: true, value: undefined } : { done: false, value };
      },
    };
  }
}
