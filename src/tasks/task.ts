// Owns the task and session record types, their pure transitions (create, switch mode, finish,
// link a child) and their public JSON shape. Never does I/O, reads a clock or keeps state.
import { randomHex } from './random.js';
import { ValidationError } from '../rpc/errors.js';
import { isRecord as isObject } from '../rpc/jsonrpc.js';

/** Every task state, in one table; `active` is the only state a task can leave. */
export const TASK_STATES = ['active', 'completed', 'failed', 'cancelled'] as const;
export type TaskState = (typeof TASK_STATES)[number];
export type FinalState = Exclude<TaskState, 'active'>;
export type MessageRole = 'user' | 'assistant';

export const SESSION_ID_PATTERN = /^ses_[0-9a-f]{24}$/;
export const TASK_ID_PATTERN = /^task_[0-9a-f]{24}$/;

// Internal records keep timestamps as epoch milliseconds and leave rarely used collections
// undefined until needed: a live session should cost well under 1.5 KB of heap. Records are
// treated as immutable (transitions return new ones) except `SessionRecord.lastAccessed`.
export interface MessageRecord { readonly role: MessageRole; readonly content: string; readonly at: number }
export interface ModeChangeRecord { readonly from: string; readonly to: string; readonly reason: string | undefined; readonly at: number }

export interface TaskRecord {
  readonly id: string;
  readonly mode: string;
  readonly state: TaskState;
  readonly createdAt: number;
  readonly completedAt: number | undefined;
  readonly parentId: string | undefined;
  readonly children: readonly string[] | undefined;
  /**
   * A bare string is the common case kept compact: one user message sent at `createdAt` (the
   * initial message). It saves an array, an object and a boxed number per session; read the
   * messages through messageList().
   */
  readonly messages: readonly MessageRecord[] | string | undefined;
  readonly history: readonly ModeChangeRecord[] | undefined;
  readonly metadata: Readonly<Record<string, unknown>> | undefined;
  readonly result: string | undefined;
}

export interface SessionRecord {
  readonly id: string;
  readonly task: TaskRecord;
  /** Epoch ms of the last access; the one field updated in place. */
  lastAccessed: number;
  /** Session ids of the relatives: task ids alone cannot find a session. */
  readonly parentSession: string | undefined;
  readonly childSessions: readonly string[] | undefined;
}

export interface MessageJson { role: MessageRole; content: string; timestamp: string }
export interface ModeChangeJson { from: string; to: string; reason?: string; at: string }
export interface TaskJson {
  task_id: string;
  mode_slug: string;
  state: TaskState;
  created_at: string;
  completed_at?: string;
  parent_task_id?: string;
  child_task_ids: string[];
  messages: MessageJson[];
  mode_history: ModeChangeJson[];
  metadata: Record<string, unknown>;
  result?: string;
}

/** What callers get: plain JSON-ready copies, never the live records. */
export interface SessionView { session_id: string; created_at: string; last_accessed: string; task: TaskJson }

// Writing every property in one order keeps a single hidden class for all records.
export function makeTask(t: TaskRecord): TaskRecord {
  return {
    id: t.id, mode: t.mode, state: t.state, createdAt: t.createdAt, completedAt: t.completedAt,
    parentId: t.parentId, children: t.children, messages: t.messages, history: t.history,
    metadata: t.metadata, result: t.result,
  };
}

export function makeSession(s: SessionRecord): SessionRecord {
  return { id: s.id, task: s.task, lastAccessed: s.lastAccessed, parentSession: s.parentSession, childSessions: s.childSessions };
}

export const withTask = (rec: SessionRecord, task: TaskRecord): SessionRecord => makeSession({ ...rec, task });

export function toView(rec: SessionRecord): SessionView {
  return { session_id: rec.id, created_at: iso(rec.task.createdAt), last_accessed: iso(rec.lastAccessed), task: taskToJson(rec.task) };
}

// Ids are built in one scratch buffer so each is one flat string (a concatenation would keep
// two strings and a cons cell alive per id for the session's whole life).
const idScratch = Buffer.allocUnsafeSlow(5 + 24);

/** `prefix` + 24 lowercase hex from the CSPRNG, as one flat string (no slices retained). */
export function randomId(prefix: 'ses_' | 'task_'): string {
  idScratch.write(prefix, 0, 'latin1');
  idScratch.write(randomHex(12), prefix.length, 'latin1');
  return idScratch.toString('latin1', 0, prefix.length + 24);
}

export function newTask(input: { id: string; mode: string; at: number; initialMessage?: string | undefined; parentId?: string | undefined }): TaskRecord {
  return makeTask({
    id: input.id, mode: input.mode, state: 'active', createdAt: input.at, completedAt: undefined,
    parentId: input.parentId, children: undefined, messages: input.initialMessage, history: undefined, metadata: undefined, result: undefined,
  });
}

function requireActive(task: TaskRecord, action: string): void {
  if (task.state !== 'active') {
    throw new ValidationError(`Task ${task.id} is ${task.state}; only an active task can ${action}`, {
      message: `Task ${task.id} is already ${task.state}${task.completedAt === undefined ? '' : ` (since ${iso(task.completedAt)})`}; only an active task can ${action}`,
      task_id: task.id,
      state: task.state,
    });
  }
}

/** Moves an active task to another mode and records the change. */
export function switchTaskMode(task: TaskRecord, to: string, reason: string | undefined, at: number): TaskRecord {
  requireActive(task, 'switch modes');
  const change: ModeChangeRecord = { from: task.mode, to, reason, at };
  return makeTask({ ...task, mode: to, history: [...(task.history ?? []), change] });
}

/** Finishes an active task once; a result is kept and also recorded as an assistant message. */
export function finishTask(task: TaskRecord, status: FinalState, result: string | undefined, at: number): TaskRecord {
  requireActive(task, `be marked ${status}`);
  const messages = result === undefined ? task.messages : [...messageList(task), { role: 'assistant' as const, content: result, at }];
  return makeTask({ ...task, state: status, completedAt: at, messages, result });
}

/** Only an active task takes new subtasks: a finished one would never look at them. */
export function addChildTask(task: TaskRecord, childTaskId: string): TaskRecord {
  requireActive(task, 'take a subtask');
  return makeTask({ ...task, children: [...(task.children ?? []), childTaskId] });
}

export const iso = (ms: number): string => new Date(ms).toISOString();

/** The task's messages in order, whichever form they are kept in. */
export function messageList(t: TaskRecord): readonly MessageRecord[] {
  if (typeof t.messages === 'string') return [{ role: 'user', content: t.messages, at: t.createdAt }];
  return t.messages ?? [];
}

/** The compact form when the list is just the initial user message, else the list itself. */
function compactMessages(list: readonly MessageRecord[] | undefined, createdAt: number): TaskRecord['messages'] {
  if (list?.length === 1 && list[0]!.role === 'user' && list[0]!.at === createdAt) return list[0]!.content;
  return list;
}

/** The public, JSON-ready copy of a task. */
export function taskToJson(t: TaskRecord): TaskJson {
  return {
    task_id: t.id,
    mode_slug: t.mode,
    state: t.state,
    created_at: iso(t.createdAt),
    ...(t.completedAt === undefined ? {} : { completed_at: iso(t.completedAt) }),
    ...(t.parentId === undefined ? {} : { parent_task_id: t.parentId }),
    child_task_ids: t.children === undefined ? [] : [...t.children],
    messages: messageList(t).map((m) => ({ role: m.role, content: m.content, timestamp: iso(m.at) })),
    mode_history: (t.history ?? []).map((h) => ({ from: h.from, to: h.to, ...(h.reason === undefined ? {} : { reason: h.reason }), at: iso(h.at) })),
    metadata: t.metadata === undefined ? {} : structuredClone({ ...t.metadata }),
    ...(t.result === undefined ? {} : { result: t.result }),
  };
}

// Reading back: a file may have been edited by hand or written by a newer version, so every
// field is checked; the first problem found is returned as text instead of a record.
const optString = (v: unknown): v is string | undefined => v === undefined || typeof v === 'string';

/** Epoch ms of an ISO-8601 timestamp, or NaN. */
export function parseTime(v: unknown): number {
  return typeof v === 'string' ? Date.parse(v) : Number.NaN;
}

function parseMessage(v: unknown): MessageRecord | undefined {
  if (!isObject(v) || (v.role !== 'user' && v.role !== 'assistant') || typeof v.content !== 'string') return undefined;
  const at = parseTime(v.timestamp);
  return Number.isFinite(at) ? { role: v.role, content: v.content, at } : undefined;
}

function parseChange(v: unknown): ModeChangeRecord | undefined {
  if (!isObject(v) || typeof v.from !== 'string' || typeof v.to !== 'string' || !optString(v.reason)) return undefined;
  const at = parseTime(v.at);
  return Number.isFinite(at) ? { from: v.from, to: v.to, reason: v.reason, at } : undefined;
}

function parseList<T>(v: unknown, item: (x: unknown) => T | undefined): T[] | undefined | string {
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) return 'not an array';
  const out: T[] = [];
  for (const x of v) {
    const parsed = item(x);
    if (parsed === undefined) return `bad entry ${JSON.stringify(x)}`;
    out.push(parsed);
  }
  return out.length === 0 ? undefined : out;
}

/** A task record from its JSON form, or a description of the first problem. */
export function taskFromJson(v: unknown): TaskRecord | string {
  if (!isObject(v)) return 'task is not an object';
  if (typeof v.task_id !== 'string' || !TASK_ID_PATTERN.test(v.task_id)) return 'bad task_id';
  if (typeof v.mode_slug !== 'string' || v.mode_slug === '') return 'bad mode_slug';
  const state = v.state;
  if (typeof state !== 'string' || !(TASK_STATES as readonly string[]).includes(state)) return 'bad state';
  const createdAt = parseTime(v.created_at);
  if (!Number.isFinite(createdAt)) return 'bad created_at';
  const completedAt = v.completed_at === undefined ? undefined : parseTime(v.completed_at);
  if (completedAt !== undefined && !Number.isFinite(completedAt)) return 'bad completed_at';
  if (v.parent_task_id !== undefined && (typeof v.parent_task_id !== 'string' || !TASK_ID_PATTERN.test(v.parent_task_id))) return 'bad parent_task_id';
  const children = parseList(v.child_task_ids, (x) => (typeof x === 'string' && TASK_ID_PATTERN.test(x) ? x : undefined));
  if (typeof children === 'string') return `child_task_ids: ${children}`;
  const messages = parseList(v.messages, parseMessage);
  if (typeof messages === 'string') return `messages: ${messages}`;
  const history = parseList(v.mode_history, parseChange);
  if (typeof history === 'string') return `mode_history: ${history}`;
  if (v.metadata !== undefined && !isObject(v.metadata)) return 'bad metadata';
  if (!optString(v.result)) return 'bad result';
  return makeTask({
    id: v.task_id, mode: v.mode_slug, state: state as TaskState, createdAt, completedAt,
    parentId: v.parent_task_id, children, messages: compactMessages(messages, createdAt), history,
    metadata: v.metadata === undefined || Object.keys(v.metadata).length === 0 ? undefined : v.metadata,
    result: v.result,
  });
}
