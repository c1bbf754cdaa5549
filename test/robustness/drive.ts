// Small helpers the robustness tests share for driving a spawned server: a clean end that waits
// for stdout to drain, a config file with persistence, and tallies of responses. No assertions here.
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Msg, ServerProcess } from '../protocol/harness.js';
import { idKey } from './observe.js';

/** Ends stdin and resolves once the process exited and everything it wrote was read. */
export async function endAndDrain(s: ServerProcess, timeoutMs = 10_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const closed = s.child.stdout.closed ? Promise.resolve() : once(s.child.stdout, 'close').then(() => undefined);
  const res = await s.end(timeoutMs);
  await closed;
  return res;
}

/**
 * Resolves once the process exited and its stdout was read to the end (after a kill or a signal).
 * A process still alive after `timeoutMs` is killed with SIGKILL, which the result then shows.
 */
export async function exitAndDrain(s: ServerProcess, timeoutMs = 15_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const closed = s.child.stdout.closed ? Promise.resolve() : once(s.child.stdout, 'close').then(() => undefined);
  const timer = setTimeout(() => s.kill(), timeoutMs);
  const res = await s.exit;
  clearTimeout(timer);
  await closed;
  return res;
}

/**
 * A temporary folder removed after the test. Unlike the harness's tempDir, removal never throws: a
 * server killed in a later hook may still be writing there, and a throwing hook would skip that kill.
 */
export function scratchDir(t: { after(fn: () => void): void }, prefix = 'rms-robust-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => {
    try { rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 }); } catch { /* best effort */ }
  });
  return dir;
}

/** Writes a config file turning session persistence on in `storage`; returns its path. */
export function persistenceConfig(dir: string, storage: string, extra: Record<string, unknown> = {}): string {
  const path = join(dir, 'config.json');
  writeFileSync(path, JSON.stringify({ sessions: { persistence: { enabled: true, storage_path: storage } }, ...extra }));
  return path;
}

/** Responses (result or error) among the messages, counted per id key. */
export function responsesById(messages: readonly Msg[]): Map<string, Msg[]> {
  const out = new Map<string, Msg[]>();
  for (const m of messages) {
    if (!('result' in m) && !('error' in m)) continue;
    const key = idKey(m.id);
    const list = out.get(key);
    if (list) list.push(m); else out.set(key, [m]);
  }
  return out;
}
