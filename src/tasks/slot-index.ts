// Finds a session's slot in the session table from its id's numbers: an open-addressing hash
// table in typed memory outside the V8 heap. It stores slot numbers only, never ids or records.

/**
 * How it works: each cell holds a slot + 1 (0 is empty); a slot lives at the first free cell from
 * its hash on (linear probing), and removal shifts later cells of the same run back, so a lookup
 * stops at the first empty cell and no tombstones pile up. The table doubles once half full.
 * The owner tells a slot's hash (`hashOf`) and whether a slot holds the id asked for (`matches`),
 * so no id is kept twice. Why not a Map: with 100,000 sessions its backing store is megabytes of
 * heap, copied each time it grows, all of it live data V8's young generation had to carry.
 */
export class SlotIndex {
  #cells = new Int32Array(1024);
  #count = 0;

  constructor(
    private readonly hashOf: (slot: number) => number,
    private readonly matches: (slot: number, hi: number, lo: number) => boolean,
  ) {}

  /** The slot holding the id whose hash is `hash` and numbers are `hi`/`lo`, if any. */
  find(hash: number, hi: number, lo: number): number | undefined {
    const cells = this.#cells;
    const mask = cells.length - 1;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const cell = cells[i]!;
      if (cell === 0) return undefined;
      if (this.matches(cell - 1, hi, lo)) return cell - 1;
    }
  }

  /** Records a slot that is not in the index yet. */
  add(hash: number, slot: number): void {
    if ((this.#count + 1) * 2 > this.#cells.length) this.#rehash(this.#cells.length * 2);
    this.#place(this.#cells, hash, slot);
    this.#count++;
  }

  /** Forgets a slot (nothing happens when it is not there). */
  remove(hash: number, slot: number): void {
    const cells = this.#cells;
    const mask = cells.length - 1;
    let hole = hash & mask;
    while (cells[hole] !== slot + 1) {
      if (cells[hole] === 0) return;
      hole = (hole + 1) & mask;
    }
    // Backward shift: a later cell of the run moves into the hole unless its home lies cyclically
    // after the hole (then it is still reachable from its home without crossing the hole).
    for (let j = (hole + 1) & mask; cells[j] !== 0; j = (j + 1) & mask) {
      const home = this.hashOf(cells[j]! - 1) & mask;
      const stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
      if (stays) continue;
      cells[hole] = cells[j]!;
      hole = j;
    }
    cells[hole] = 0;
    this.#count--;
  }

  #place(cells: Int32Array, hash: number, slot: number): void {
    const mask = cells.length - 1;
    let i = hash & mask;
    while (cells[i] !== 0) i = (i + 1) & mask;
    cells[i] = slot + 1;
  }

  #rehash(size: number): void {
    const old = this.#cells;
    const cells = new Int32Array(size);
    for (const cell of old) if (cell !== 0) this.#place(cells, this.hashOf(cell - 1), cell - 1);
    this.#cells = cells;
  }
}
