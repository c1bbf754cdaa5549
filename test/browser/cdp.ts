// A small Chrome DevTools Protocol client for the browser tier, over Chromium's debugging pipe
// (--remote-debugging-pipe: commands in on fd 3, answers and events out on fd 4, each JSON message
// ended by a NUL byte), so no port is opened and no WebSocket is needed. Starts and stops Chromium.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

export const CHROMIUM = '/usr/bin/chromium';

/** Why the tier cannot run here, or null. */
export const chromiumMissing: string | null = existsSync(CHROMIUM) ? null : `${CHROMIUM} is absent (apt-get install -y chromium, then node test/run.mjs test/browser)`;

/**
 * Headless, a profile of its own, and no network: nothing in the background, and every host name
 * but localhost unresolvable (the pages are served on loopback, by IP and as localhost).
 */
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-extensions', '--disable-default-apps', '--mute-audio',
  '--no-proxy-server', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
  // Each site in a process of its own even here, so the view (another origin) is a target to attach to.
  '--site-per-process', '--hide-scrollbars', '--remote-debugging-pipe',
];

export type CdpEvent = { method: string; params: Record<string, any>; sessionId?: string };
interface Pending { resolve(v: any): void; reject(e: Error): void; method: string }

export class Cdp {
  readonly #out: Writable;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Set<(e: CdpEvent) => void>();
  readonly #ids = { next: 1 };
  #buf = '';

  constructor(out: Writable, input: Readable) {
    this.#out = out;
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => {
      this.#buf += chunk;
      let end: number;
      while ((end = this.#buf.indexOf('\0')) !== -1) {
        const text = this.#buf.slice(0, end);
        this.#buf = this.#buf.slice(end + 1);
        this.#receive(JSON.parse(text) as Record<string, any>);
      }
    });
    input.on('close', () => { for (const p of this.#pending.values()) p.reject(new Error(`Chromium went away during ${p.method}`)); this.#pending.clear(); });
  }

  #receive(msg: Record<string, any>): void {
    if (typeof msg.id === 'number') {
      const p = this.#pending.get(msg.id);
      if (!p) return;
      this.#pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}${msg.error.data ? ` (${msg.error.data})` : ''}`));
      else p.resolve(msg.result);
      return;
    }
    for (const fn of [...this.#listeners]) fn(msg as CdpEvent);
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<any> {
    const id = this.#ids.next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, method });
      this.#out.write(`${JSON.stringify(sessionId === undefined ? { id, method, params } : { id, method, params, sessionId })}\0`);
    });
  }

  on(fn: (e: CdpEvent) => void): () => void {
    this.#listeners.add(fn);
    return () => { this.#listeners.delete(fn); };
  }

  /** The next event matching `pred` (events before the call are not seen: subscribe first). */
  next(pred: (e: CdpEvent) => boolean, timeoutMs: number, what: string): Promise<CdpEvent> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { off(); reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)); }, timeoutMs);
      const off = this.on((e) => { if (pred(e)) { clearTimeout(timer); off(); resolve(e); } });
    });
  }

  /** Evaluates `expression` (awaiting a promise) in a session's page and returns its value. */
  async evaluate<T = unknown>(sessionId: string, expression: string): Promise<T> {
    const r = await this.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId);
    if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value as T;
  }
}

export interface Browser { cdp: Cdp; child: ChildProcess; close(): Promise<void> }

/** Starts Chromium with a fresh profile, removed (with the process) by close(). */
export function launchChromium(): Browser {
  const profile = mkdtempSync(join(tmpdir(), 'rms-chromium-'));
  const child = spawn(CHROMIUM, [...FLAGS, `--user-data-dir=${profile}`, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  child.stderr!.setEncoding('utf8').on('data', (t: string) => { stderr.push(t); if (stderr.length > 200) stderr.shift(); });
  const cdp = new Cdp(child.stdio[3] as Writable, child.stdio[4] as Readable);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    cdp, child,
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        await cdp.send('Browser.close').catch(() => child.kill('SIGKILL'));
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
