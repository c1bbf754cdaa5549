// Owns the in-memory form of the live sessions: fresh sessions (an active task with at most its
// initial message and no relatives) packed into columns, whole records for the rest. Never decides
// expiry, orders operations, validates input or does I/O: src/tasks/local-store.ts does all of that.
import { makeSession, makeTask, TASK_ID_PATTERN, type SessionRecord, type TaskRecord } from './task.js';
import { SlotIndex } from './slot-index.js';

// Why columns: a session kept as two record objects, two id strings and two boxed timestamps cost
// ~400 bytes of heap; most sessions are created once and never changed. A packed slot costs one
// cell of the slot index, NUMS doubles in a block of numbers and one reference (the
// initial message, or the whole record when the session is not in the packed shape). The numbers
// live in fixed blocks of typed memory, outside the V8 heap: a growing array of doubles is copied
// each time it grows, and every copy, like every number written, is live data the young-generation
// collector must move and count, which made V8 grow its young generation during a burst of
// creates (the RSS growth per session of the memory benchmark). Blocks are never copied.
// Ids are 96 random bits, kept as two 48-bit halves (exact in a double); the slot index hashes the
// low half (random bits) and checks each candidate slot against the full id.
const NUMS = 7; // created at, last accessed, task id high half, low half, mode index, session id high half, low half
const HALF = 12; // hex digits per 48-bit half of an id
const TASK_HEAD = 'task_'.length;
const SES_HEAD = 'ses_'.length;
const FREE = -1; // the session-id high half of a free slot: matches no id
const MAX_MODES = 0xffff;
const BLOCK_BITS = 12; // 4,096 slots (229 KB) per block of numbers
const BLOCK_SLOTS = 1 << BLOCK_BITS;

/** What a slot refers to: the initial message (packed), the whole record (not packed) or nothing. */
type SlotRef = string | SessionRecord | undefined;

/** NUMS doubles and one reference per slot, in blocks allocated once each; slots are added in order. */
class Columns {
  readonly #numbers: Float64Array[] = [];
  readonly #refs: SlotRef[][] = [];

  #made = 0;

  /** Slots made so far (used or free). */
  get slots(): number { return this.#made; }

  /** Makes the next slot and returns it. */
  grow(): number {
    const slot = this.#made++;
    if (slot >> BLOCK_BITS >= this.#numbers.length) {
      this.#numbers.push(new Float64Array(BLOCK_SLOTS * NUMS));
      this.#refs.push(new Array<SlotRef>(BLOCK_SLOTS).fill(undefined));
    }
    return slot;
  }

  get(slot: number, field: number): number {
    return this.#numbers[slot >> BLOCK_BITS]![(slot & (BLOCK_SLOTS - 1)) * NUMS + field]!;
  }

  set(slot: number, field: number, value: number): void {
    this.#numbers[slot >> BLOCK_BITS]![(slot & (BLOCK_SLOTS - 1)) * NUMS + field] = value;
  }

  ref(slot: number): SlotRef { return this.#refs[slot >> BLOCK_BITS]![slot & (BLOCK_SLOTS - 1)]; }

  setRef(slot: number, value: SlotRef): void { this.#refs[slot >> BLOCK_BITS]![slot & (BLOCK_SLOTS - 1)] = value; }
}

/** The index's hash of a session id: the low half's random bits. */
const hashOf = (lo: number): number => lo | 0;

/** True when the record carries nothing the packed form cannot give back exactly. */
function packable(rec: SessionRecord): boolean {
  const t = rec.task;
  return rec.parentSession === undefined && rec.childSessions === undefined && t.state === 'active'
    && t.completedAt === undefined && t.parentId === undefined && t.children === undefined
    && (t.messages === undefined || typeof t.messages === 'string') && t.history === undefined
    && t.metadata === undefined && t.result === undefined && TASK_ID_PATTERN.test(t.id);
}

// Ids are rebuilt in one scratch buffer: one flat string per id, no number formatting.
const scratch = Buffer.allocUnsafeSlow(TASK_HEAD + 2 * HALF);

/** `prefix` + the two halves as 24 lowercase hex digits. */
function idText(prefix: 'ses_' | 'task_', hi: number, lo: number): string {
  const bytes = HALF / 2;
  scratch.writeUIntBE(hi, 0, bytes);
  scratch.writeUIntBE(lo, bytes, bytes);
  return prefix + scratch.toString('hex', 0, 2 * bytes);
}

// What parseId read last (module scratch: no array per lookup).
let parsedHi = 0;
let parsedLo = 0;

/**
 * Reads a session id into parsedHi/parsedLo in one pass; false unless it is exactly
 * `ses_` + 24 lowercase hex (the same rule as SESSION_ID_PATTERN, without a regex and two parses).
 */
function parseId(id: string): boolean {
  if (id.length !== SES_HEAD + 2 * HALF || !id.startsWith('ses_')) return false;
  let hi = 0;
  let lo = 0;
  for (let i = 0; i < 2 * HALF; i++) {
    const c = id.charCodeAt(SES_HEAD + i);
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1; // 0-9, a-f
    if (digit < 0) return false;
    if (i < HALF) hi = hi * 16 + digit;
    else lo = lo * 16 + digit;
  }
  parsedHi = hi;
  parsedLo = lo;
  return true;
}

export class SessionTable {
  #size = 0;
  // The last id found and its slot: an access looks a session up, then records the access.
  #recentId: string | undefined;
  #recentSlot = 0;
  /** NUMS numbers and a reference per slot (see Columns). */
  readonly #nums = new Columns();
  readonly #index = new SlotIndex(
    (slot) => hashOf(this.#nums.get(slot, 6)),
    (slot, hi, lo) => this.#nums.get(slot, 5) === hi && this.#nums.get(slot, 6) === lo,
  );
  readonly #free: number[] = [];
  readonly #modeIndex = new Map<string, number>();
  readonly #modeNames: string[] = [];

  get size(): number { return this.#size; }

  has(id: string): boolean { return this.#find(id) !== undefined; }

  /** A fresh copy of the record: changing it changes nothing here (use touch or set). */
  get(id: string): SessionRecord | undefined {
    const slot = this.#find(id);
    if (slot === undefined) return undefined;
    const n = this.#nums;
    const ref = n.ref(slot);
    if (typeof ref === 'object') return makeSession({ ...ref, lastAccessed: n.get(slot, 1) });
    const task: TaskRecord = makeTask({
      id: idText('task_', n.get(slot, 2), n.get(slot, 3)), mode: this.#modeNames[n.get(slot, 4)]!, state: 'active',
      createdAt: n.get(slot, 0), completedAt: undefined, parentId: undefined, children: undefined, messages: ref,
      history: undefined, metadata: undefined, result: undefined,
    });
    return makeSession({ id, task, lastAccessed: n.get(slot, 1), parentSession: undefined, childSessions: undefined });
  }

  /** Adds or replaces a session; `id` must be `ses_` + 24 lowercase hex (the store checks first). */
  set(id: string, rec: SessionRecord): void {
    if (!parseId(id)) throw new TypeError(`not a session id: ${JSON.stringify(id.slice(0, 100))}`);
    const hi = parsedHi;
    const lo = parsedLo;
    let slot = this.#index.find(hashOf(lo), hi, lo);
    const n = this.#nums;
    if (slot === undefined) {
      slot = this.#free.pop() ?? n.grow();
      n.set(slot, 5, hi);
      n.set(slot, 6, lo);
      this.#index.add(hashOf(lo), slot);
      this.#size++;
      this.#recentId = id;
      this.#recentSlot = slot;
    }
    n.set(slot, 1, rec.lastAccessed);
    const mode = packable(rec) ? this.#intern(rec.task.mode) : -1;
    if (mode < 0) {
      n.setRef(slot, rec);
      return;
    }
    const t = rec.task;
    n.set(slot, 0, t.createdAt);
    n.set(slot, 2, Number.parseInt(t.id.slice(TASK_HEAD, TASK_HEAD + HALF), 16));
    n.set(slot, 3, Number.parseInt(t.id.slice(TASK_HEAD + HALF), 16));
    n.set(slot, 4, mode);
    n.setRef(slot, t.messages as string | undefined);
  }

  /** The session's mode and last access without building its record (undefined when absent). */
  modeOf(id: string): string | undefined {
    const slot = this.#find(id);
    if (slot === undefined) return undefined;
    const ref = this.#nums.ref(slot);
    return typeof ref === 'object' ? ref.task.mode : this.#modeNames[this.#nums.get(slot, 4)]!;
  }

  lastAccessed(id: string): number | undefined {
    const slot = this.#find(id);
    return slot === undefined ? undefined : this.#nums.get(slot, 1);
  }

  /** Records an access; false when the id is not here. */
  touch(id: string, at: number): boolean {
    const slot = this.#find(id);
    if (slot === undefined) return false;
    this.#nums.set(slot, 1, at);
    return true;
  }

  delete(id: string): boolean {
    const slot = this.#find(id);
    if (slot === undefined) return false;
    this.#index.remove(hashOf(this.#nums.get(slot, 6)), slot);
    this.#nums.set(slot, 5, FREE);
    this.#recentId = undefined;
    this.#nums.setRef(slot, undefined); // the message or record is garbage from here
    this.#free.push(slot);
    this.#size--;
    return true;
  }

  /**
   * Visits every slot in order, yielding the session's id when `stale(last access)` holds and null
   * otherwise, free slots included (so a long walk can still be sliced); deleting during the walk
   * is allowed, and a session added meanwhile may or may not be visited.
   */
  *walk(stale: (lastAccessed: number) => boolean): Generator<string | null> {
    for (let slot = 0; slot < this.#nums.slots; slot++) yield this.#ifStale(slot, stale);
  }

  #ifStale(slot: number, stale: (lastAccessed: number) => boolean): string | null {
    const n = this.#nums;
    // A slot freed by a deletion during the walk is skipped.
    return n.get(slot, 5) !== FREE && stale(n.get(slot, 1)) ? idText('ses_', n.get(slot, 5), n.get(slot, 6)) : null;
  }

  /** The slot holding `id`, if any. */
  #find(id: string): number | undefined {
    if (id === this.#recentId) return this.#recentSlot;
    const slot = parseId(id) ? this.#index.find(hashOf(parsedLo), parsedHi, parsedLo) : undefined;
    if (slot !== undefined) {
      this.#recentId = id;
      this.#recentSlot = slot;
    }
    return slot;
  }

  /** The mode's index, or -1 when the table of names is full (the record is then kept whole). */
  #intern(mode: string): number {
    let i = this.#modeIndex.get(mode);
    if (i === undefined) {
      if (this.#modeNames.length >= MAX_MODES) return -1;
      i = this.#modeNames.push(mode) - 1;
      this.#modeIndex.set(mode, i);
    }
    return i;
  }
}
