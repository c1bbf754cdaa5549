// The ids of expired sessions, so an expired id answers -32003 rather than -32002. Bounded: it
// owns only the ids, forgets the oldest first, and never touches sessions or files.

/** A bounded, insertion-ordered set: the oldest id goes first when full. */
export class Tombstones {
  readonly #ids = new Set<string>();
  constructor(readonly limit: number) {}
  add(id: string): void {
    this.#ids.delete(id);
    this.#ids.add(id);
    while (this.#ids.size > this.limit) {
      const oldest = this.#ids.values().next();
      if (oldest.done === true) break;
      this.#ids.delete(oldest.value);
    }
  }
  has(id: string): boolean { return this.#ids.has(id); }
}
