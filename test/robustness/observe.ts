// What the robustness tests observe from outside the server: the shape of each stdout message,
// its memory in /proc, and conditions polled with a deadline. It never talks to the server itself.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** JSON-RPC ids the way the server matches them: by their JSON text (so 1 and "1" differ). */
export const idKey = (id: unknown): string => JSON.stringify(id) ?? 'undefined';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

export type WireKind = 'response' | 'notification' | 'request';

/**
 * Classifies one message the server wrote, or says what is wrong with it. A response has
 * jsonrpc "2.0", an id that is a string, a safe integer or null, and exactly one of result/error;
 * an error has an integer code and a string message.
 */
export function checkServerMessage(m: unknown): { kind: WireKind } | { problem: string } {
  if (!isRecord(m)) return { problem: 'not a JSON object' };
  if (m.jsonrpc !== '2.0') return { problem: `jsonrpc is ${JSON.stringify(m.jsonrpc)}` };
  if (own(m, 'method')) {
    if (typeof m.method !== 'string') return { problem: 'method is not a string' };
    if (own(m, 'result') || own(m, 'error')) return { problem: 'a message with a method also has result/error' };
    return { kind: own(m, 'id') ? 'request' : 'notification' };
  }
  if (!own(m, 'id')) return { problem: 'a response without an id' };
  const id = m.id;
  if (!(id === null || typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) {
    return { problem: `id of a bad type: ${JSON.stringify(id)}` };
  }
  if (own(m, 'result') === own(m, 'error')) return { problem: 'not exactly one of result and error' };
  if (own(m, 'error')) {
    const e = m.error;
    if (!isRecord(e)) return { problem: 'error is not an object' };
    if (!Number.isInteger(e.code)) return { problem: `error.code is not an integer: ${JSON.stringify(e.code)}` };
    if (typeof e.message !== 'string') return { problem: 'error.message is not a string' };
  }
  return { kind: 'response' };
}

function statusField(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(text);
  return m ? Number(m[1]) * 1024 : 0;
}

/** Resident memory of a live process, in bytes (0 once it is gone). */
export function rssBytes(pid: number): number {
  try { return statusField(pid, 'VmRSS'); } catch { return 0; }
}

/** Peak resident memory of a live process so far, in bytes (0 once it is gone). */
export function peakRssBytes(pid: number): number {
  try { return statusField(pid, 'VmHWM'); } catch { return 0; }
}

export const MB = 1024 * 1024;

/**
 * Polls `check` every `intervalMs` until it returns true; rejects with `what` after `deadlineMs`.
 * For conditions that have no event to await (memory, a pipe that stopped moving).
 */
export async function pollUntil(check: () => boolean, what: string, deadlineMs = 10_000, intervalMs = 20): Promise<void> {
  const giveUp = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > giveUp) throw new Error(`timed out after ${deadlineMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Every *.json file in `dir` with its parse outcome: the torn-file check of the crash tests. */
export function jsonFilesIn(dir: string): { name: string; ok: boolean; value?: unknown; error?: string }[] {
  const out: { name: string; ok: boolean; value?: unknown; error?: string }[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    const text = readFileSync(join(dir, name), 'utf8');
    try { out.push({ name, ok: true, value: JSON.parse(text) as unknown }); } catch (err) {
      out.push({ name, ok: false, error: `${err instanceof Error ? err.message : String(err)} (${text.length} chars)` });
    }
  }
  return out;
}
