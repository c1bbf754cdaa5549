// Owns the in-memory form of the live sessions: fresh sessions (an active task with at most its
// initial message and no relatives) packed into columns, whole records for the rest. Never decides
// expiry, orders operations, validates input or does I/O: src/tasks/sessions.ts does all of that.
import { makeSession, makeTask, TASK_ID_PATTERN, type SessionRecord, type TaskRecord } from './task.js';

// Why columns: a session kept as two record objects, two id strings and two boxed timestamps cost
// ~400 bytes of heap; most sessions are created once and never changed. A packed slot costs one
// map entry, NUMS doubles in one unboxed array (V8 keeps an all-number array as raw doubles) and one
// reference (the initial message, or the whole record when the session is not in the packed shape).
// Everything stays on the V8 heap, so the heap figures of the benchmark count all of it.
const NUMS = 5; // created at, last accessed, task id high 48 bits, low 48 bits, mode index
const HALF = 12; // hex digits per 48-bit half of a task id
const ID_HEAD = 'task_'.length;
const MAX_MODES = 0xffff;

/** True when the record carries nothing the packed form cannot give back exactly. */
function packable(rec: SessionRecord): boolean {
  const t = rec.task;
  return rec.parentSession === undefined && rec.childSessions === undefined && t.state === 'active'
    && t.completedAt === undefined && t.parentId === undefined && t.children === undefined
    && (t.messages === undefined || typeof t.messages === 'string') && t.history === undefined
    && t.metadata === undefined && t.result === undefined && TASK_ID_PATTERN.test(t.id);
}

const hexHalf = (n: number): string => n.toString(16).padStart(HALF, '0');

export class SessionTable {
  readonly #slots = new Map<string, number>();
  /** NUMS numbers per slot; only ever numbers, so V8 stores them unboxed. */
  readonly #nums: number[] = [];
  /** Per slot: the initial message (packed), the whole record (not packed) or undefined. */
  readonly #refs: (string | SessionRecord | undefined)[] = [];
  readonly #free: number[] = [];
  readonly #modeIndex = new Map<string, number>();
  readonly #modeNames: string[] = [];

  get size(): number { return this.#slots.size; }

  has(id: string): boolean { return this.#slots.has(id); }

  /** A fresh copy of the record: changing it changes nothing here (use touch or set). */
  get(id: string): SessionRecord | undefined {
    const slot = this.#slots.get(id);
    if (slot === undefined) return undefined;
    const n = this.#nums;
    const at = slot * NUMS;
    const ref = this.#refs[slot];
    if (typeof ref === 'object') return makeSession({ ...ref, lastAccessed: n[at + 1]! });
    const task: TaskRecord = makeTask({
      id: `task_${hexHalf(n[at + 2]!)}${hexHalf(n[at + 3]!)}`, mode: this.#modeNames[n[at + 4]!]!, state: 'active',
      createdAt: n[at]!, completedAt: undefined, parentId: undefined, children: undefined, messages: ref,
      history: undefined, metadata: undefined, result: undefined,
    });
    return makeSession({ id, task, lastAccessed: n[at + 1]!, parentSession: undefined, childSessions: undefined });
  }

  set(id: string, rec: SessionRecord): void {
    let slot = this.#slots.get(id);
    if (slot === undefined) {
      slot = this.#free.pop() ?? this.#refs.length;
      if (slot === this.#refs.length) {
        for (let i = 0; i < NUMS; i++) this.#nums.push(0); // appended in order: never a hole
        this.#refs.push(undefined);
      }
      this.#slots.set(id, slot);
    }
    const at = slot * NUMS;
    const n = this.#nums;
    n[at + 1] = rec.lastAccessed;
    const mode = packable(rec) ? this.#intern(rec.task.mode) : -1;
    if (mode < 0) {
      this.#refs[slot] = rec;
      return;
    }
    const t = rec.task;
    n[at] = t.createdAt;
    n[at + 2] = Number.parseInt(t.id.slice(ID_HEAD, ID_HEAD + HALF), 16);
    n[at + 3] = Number.parseInt(t.id.slice(ID_HEAD + HALF), 16);
    n[at + 4] = mode;
    this.#refs[slot] = t.messages as string | undefined;
  }

  /** Records an access; false when the id is not here. */
  touch(id: string, at: number): boolean {
    const slot = this.#slots.get(id);
    if (slot === undefined) return false;
    this.#nums[slot * NUMS + 1] = at;
    return true;
  }

  delete(id: string): boolean {
    const slot = this.#slots.get(id);
    if (slot === undefined) return false;
    this.#slots.delete(id);
    this.#refs[slot] = undefined; // the message or record is garbage from here
    this.#free.push(slot);
    return true;
  }

  /** Every id with its last access, in insertion order; deleting during the walk is allowed. */
  *lastAccesses(): Generator<[string, number]> {
    for (const [id, slot] of this.#slots) yield [id, this.#nums[slot * NUMS + 1]!];
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
