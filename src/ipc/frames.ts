// Roo Code's IPC wire format: form-feed-terminated UTF-8 JSON frames wrapping an IpcMessage.
// Pure: it owns the partial tail of the byte stream and the message guards; it never touches a socket.
import { LineSplitter } from '../rpc/lines.js';
import { isRecord } from '../rpc/jsonrpc.js';
import { depthMessage, tooDeep } from '../rpc/json-bounds.js';

/** node-ipc ends every frame with a form feed; JSON.stringify escapes 0x0C, so it never occurs inside one. */
export const FRAME_DELIMITER = '\f';
const FORM_FEED = 0x0c;
/** Real replies (modelsResponse) exceed 100 KB; 16 MiB leaves room while keeping memory bounded. */
export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;
/**
 * Largest TaskEvent frame kept whole by default; the bridge passes a quarter of
 * server.max_message_bytes, so one event always fits in a push notification and in a poll answer.
 */
export const DEFAULT_MAX_EVENT_BYTES = 4 * 1024 * 1024;
/** node-ipc's event name; Roo sends everything under it. */
const NODE_IPC_EVENT = 'message';

/** Every TaskCommand name the bridge may send, in one table (reference B1). */
export const TASK_COMMAND_NAMES = [
  'StartNewTask', 'CancelTask', 'CloseTask', 'ResumeTask', 'SendMessage',
  'GetCommands', 'GetModes', 'GetModels', 'DeleteQueuedMessage',
] as const;
export type TaskCommandName = (typeof TASK_COMMAND_NAMES)[number];

export interface AckData { clientId: string; pid: number; ppid: number }
export interface TaskCommandData { commandName: string; data?: unknown }
/** `payload` is Roo's argument tuple, absent when Roo sent none. */
export interface TaskEventData { eventName: string; payload?: unknown[]; taskId?: number }

export type IpcMessage =
  | { type: 'Ack'; origin: 'server'; data: AckData }
  | { type: 'TaskCommand'; origin: 'client'; clientId: string; data: TaskCommandData }
  | { type: 'TaskEvent'; origin: 'server'; relayClientId?: string; data: TaskEventData };

/** One delimited piece of the stream, or the marker for a piece that exceeded the cap. */
export type FrameEvent = { kind: 'frame'; text: string } | { kind: 'oversize'; bytes: number };

/**
 * How it works: the byte splitter the server reads stdin with, cut at form feeds instead of
 * newlines: a frame is found before any UTF-8 decoding (so a character split across chunks is
 * whole by then), its pieces are joined once, and a frame larger than `maxBytes` stops being
 * stored when it crosses the cap and is reported once at its `\f`. Empty frames are skipped.
 */
export class FrameDecoder {
  readonly #maxBytes: number;
  #splitter: LineSplitter;

  constructor(maxBytes: number = DEFAULT_MAX_FRAME_BYTES) {
    if (!Number.isInteger(maxBytes) || maxBytes <= 0) throw new TypeError(`maxBytes must be a positive integer, got ${maxBytes}`);
    this.#maxBytes = maxBytes;
    this.#splitter = this.#fresh();
  }

  /** Bytes of the unfinished frame held so far (counted even while an oversize frame is skipped). */
  get pendingBytes(): number { return this.#splitter.pendingBytes; }

  /** Feeds one chunk; returns the frames it completes, in order. Empty frames are skipped. */
  push(chunk: Buffer): FrameEvent[] {
    const events: FrameEvent[] = [];
    for (const ev of this.#splitter.push(chunk)) {
      if (ev.kind === 'oversize') events.push({ kind: 'oversize', bytes: ev.bytes });
      else if (ev.text !== '') events.push({ kind: 'frame', text: ev.text });
    }
    return events;
  }

  /** Forgets the unfinished frame (the connection closed); a new connection starts clean. */
  reset(): void {
    this.#splitter = this.#fresh();
  }

  #fresh(): LineSplitter {
    return new LineSplitter(this.#maxBytes, { delimiter: FORM_FEED, stripCarriageReturn: false, stripBom: false });
  }
}

/** A message, with a warning when its payload had to be replaced by a truncation marker. */
export type ParsedFrame = { ok: true; message: IpcMessage; warning?: string } | { ok: false; reason: string };

/** What stands in for a payload that was too large or nested too deep to keep. */
export interface TruncatedPayload { truncated: true; reason: string }

const isNonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * Narrows one frame's text to a known IpcMessage; anything else gets a short reason for the log.
 * A TaskEvent whose frame is over `maxEventBytes`, or whose payload nests deeper than the shared
 * depth bound, keeps its name and task id, but its payload becomes [TruncatedPayload marker]: the
 * event still counts (waiters, polls, pushes see it) while nothing downstream has to store,
 * serialise or forward the hostile part.
 */
export function parseFrame(text: string, maxEventBytes: number = DEFAULT_MAX_EVENT_BYTES): ParsedFrame {
  let outer: unknown;
  try { outer = JSON.parse(text); } catch { return { ok: false, reason: 'not valid JSON' }; }
  if (!isRecord(outer) || outer.type !== NODE_IPC_EVENT) return { ok: false, reason: 'not a node-ipc "message" frame' };
  const message = toIpcMessage(outer.data);
  if (!message) return { ok: false, reason: 'not a known IpcMessage' };
  if (message.type !== 'TaskEvent') return { ok: true, message };
  const bytes = text.length * 3 > maxEventBytes ? Buffer.byteLength(text, 'utf8') : text.length;
  const problem = bytes > maxEventBytes ? `its frame is ${bytes} bytes, over the limit of ${maxEventBytes} bytes`
    : tooDeep(message.data.payload) ? depthMessage('its payload') : null;
  if (problem === null) return { ok: true, message };
  // A one-element tuple like any other payload (tool results give every payload that shape).
  const marker: TruncatedPayload = { truncated: true, reason: `payload removed by roo-modes-server: ${problem}` };
  message.data.payload = [marker];
  return { ok: true, message, warning: `truncated a Roo "${message.data.eventName}" event: ${problem}` };
}

function toIpcMessage(v: unknown): IpcMessage | null {
  if (!isRecord(v) || !isRecord(v.data)) return null;
  const d = v.data;
  switch (v.type) {
    case 'Ack':
      if (v.origin !== 'server' || !isNonEmptyString(d.clientId) || typeof d.pid !== 'number' || typeof d.ppid !== 'number') return null;
      return { type: 'Ack', origin: 'server', data: { clientId: d.clientId, pid: d.pid, ppid: d.ppid } };
    case 'TaskEvent': {
      if (v.origin !== 'server' || !isNonEmptyString(d.eventName)) return null;
      if (d.taskId !== undefined && typeof d.taskId !== 'number') return null;
      const data: TaskEventData = { eventName: d.eventName };
      // Tool results carry no nulls (portable schemas), so a missing payload stays missing; a bare
      // value from a sender other than Roo becomes a one-element tuple, so every payload has one shape.
      if (d.payload !== undefined && d.payload !== null) data.payload = Array.isArray(d.payload) ? d.payload : [d.payload];
      if (typeof d.taskId === 'number') data.taskId = d.taskId;
      const message: IpcMessage = { type: 'TaskEvent', origin: 'server', data };
      if (typeof v.relayClientId === 'string') message.relayClientId = v.relayClientId;
      return message;
    }
    case 'TaskCommand': {
      if (v.origin !== 'client' || typeof v.clientId !== 'string' || !isNonEmptyString(d.commandName)) return null;
      const data: TaskCommandData = { commandName: d.commandName };
      if (d.data !== undefined) data.data = d.data;
      return { type: 'TaskCommand', origin: 'client', clientId: v.clientId, data };
    }
    default:
      return null;
  }
}

/** The bytes of one frame, delimiter included. */
export function encodeFrame(message: IpcMessage): string {
  return JSON.stringify({ type: NODE_IPC_EVENT, data: message }) + FRAME_DELIMITER;
}

/** A TaskCommand as Roo's IpcServer expects it: the clientId from the Ack travels in every command. */
export function taskCommand(clientId: string, commandName: TaskCommandName, data?: unknown): IpcMessage {
  return { type: 'TaskCommand', origin: 'client', clientId, data: data === undefined ? { commandName } : { commandName, data } };
}
