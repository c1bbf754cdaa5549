// Outgoing messages as wire lines with their byte counts, and the output size limit: an answer
// that cannot be sent becomes an error for its id. It never writes to a stream or picks answers.
import { InternalError } from '../rpc/errors.js';
import { isValidId, SplicedLine, type Outgoing, type RequestId } from '../rpc/jsonrpc.js';
import { LARGE_BYTES, largeBytes } from './large-bytes.js';

/**
 * One serialised message, without its newline, as the writer sends it: its UTF-8 bytes, or a
 * cached answer's head and shared bytes (SplicedLine). A message is encoded as soon as it is
 * serialised: answers waiting in the queue are then bytes outside the V8 heap rather than strings
 * in it (a two-byte string, as soon as a mode name carries an emoji), which is what V8's young
 * generation had to keep moving, and grew for, while a burst waited for the client to read.
 * Queues weigh a line by its length (bytes, or near enough for a SplicedLine's head).
 */
export type WireLine = Buffer | SplicedLine;

/** The line as text, for the doors that need a string (HTTP bodies, batch arrays). */
export const lineText = (line: WireLine): string => line.toString();

/** Why a message cannot be sent (its size when known). */
export interface Refusal { readonly problem: string; readonly bytes: number | null }

export const isRefusal = (out: WireLine | Refusal): out is Refusal => !Buffer.isBuffer(out) && !(out instanceof SplicedLine);

/** Serialises one message; refuses it when it is over `maxBytes` or cannot be serialised at all. */
export function encodeLine(message: Outgoing, maxBytes: number): WireLine | Refusal {
  let text: string;
  try {
    if ('raw' in message && message.raw instanceof SplicedLine) return splicedWithin(message.raw, maxBytes);
    text = 'raw' in message && typeof message.raw === 'string' ? message.raw : JSON.stringify(message);
  } catch (err) {
    // A string past V8's length limit, or a value nested too deep for the serialiser.
    return { problem: `it could not be serialised (${err instanceof Error ? err.message : String(err)})`, bytes: null };
  }
  // UTF-8 takes at most 3 bytes per UTF-16 unit: short lines fit without counting their bytes.
  if (text.length * 3 > maxBytes) {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > maxBytes) return { problem: `it is ${bytes} bytes, over the limit of ${maxBytes} bytes (server.max_message_bytes)`, bytes };
  }
  return utf8(text);
}

/** A line's bytes; a large one in memory of its own (see large-bytes.ts). */
const utf8 = (text: string): Buffer => (text.length * 3 > LARGE_BYTES ? largeBytes([text]) : Buffer.from(text, 'utf8'));

/** A spliced line's body is ASCII; only its short head (a string id may not be) is counted. */
function splicedWithin(line: SplicedLine, maxBytes: number): WireLine | Refusal {
  const bytes = Buffer.byteLength(line.head, 'utf8') + line.body.length + 1;
  return bytes > maxBytes ? { problem: `it is ${bytes} bytes, over the limit of ${maxBytes} bytes (server.max_message_bytes)`, bytes } : line;
}

/** The id a response answers (null when it has none, e.g. a parse error). */
export function responseId(message: Outgoing): RequestId | null {
  const id = (message as { id?: unknown }).id;
  return isValidId(id) ? id : null;
}

/** The error sent in place of an answer that could not be sent. */
export function unsentAnswerError(id: RequestId | null, problem: string, bytes: number | null, limit: number): Outgoing {
  const error = new InternalError(`Response not sent: ${problem}`, {
    message: 'The answer to this request was not sent because it is too large to send. Ask for less (for example without ' +
      'include_system_prompt or include_messages), or raise server.max_message_bytes in the server configuration.',
    bytes, limit,
  });
  return { jsonrpc: '2.0', id, error: error.toWire() };
}

/**
 * Encodes a response, replacing it with the "not sent" error for its id when it does not fit, so
 * every id still gets exactly one answer. `onRefused` hears why (for the log).
 */
export function encodeResponse(message: Outgoing, maxBytes: number, onRefused: (id: RequestId | null, problem: string) => void): WireLine {
  const out = encodeLine(message, maxBytes);
  if (!isRefusal(out)) return out;
  const id = responseId(message);
  onRefused(id, out.problem);
  return forced(unsentAnswerError(id, out.problem, out.bytes, maxBytes));
}

/**
 * A batch's answers as one array line. Each answer is checked on its own; if the array is still
 * over the limit, the largest answers are replaced by their "not sent" errors until it fits. The
 * array text is only built once it is known to be within the limit.
 */
export function encodeBatch(answers: readonly Outgoing[], maxBytes: number, onRefused: (id: RequestId | null, problem: string) => void): WireLine {
  const lines = answers.map((a) => lineText(encodeResponse(a, maxBytes, onRefused)));
  const sizes = lines.map((l) => Buffer.byteLength(l, 'utf8'));
  const total = (): number => sizes.reduce((sum, n) => sum + n, 0) + lines.length + 1; // commas and brackets
  const order = lines.map((_, i) => i).sort((a, b) => sizes[b]! - sizes[a]!);
  for (const i of order) {
    const size = total();
    if (size <= maxBytes) break;
    const id = responseId(answers[i]!);
    const problem = `the batch answer is ${size} bytes, over the limit of ${maxBytes} bytes (server.max_message_bytes)`;
    onRefused(id, problem);
    lines[i] = lineText(forced(unsentAnswerError(id, problem, sizes[i]!, maxBytes)));
    sizes[i] = Buffer.byteLength(lines[i]!, 'utf8');
  }
  return utf8(`[${lines.join(',')}]`);
}

/** A small message of our own making: always serialisable, never near any limit. */
function forced(message: Outgoing): Buffer {
  return Buffer.from(JSON.stringify(message), 'utf8');
}
