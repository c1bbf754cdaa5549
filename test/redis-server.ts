// Gives tests a real Redis: a redis-server of their own on a free loopback port (stopped in t.after),
// else the one ROO_MODES_TEST_REDIS names, else one skip reason naming both. Never the shared 6379.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { connect as netConnect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import type { TestContext } from 'node:test';
import { RedisClient } from '../src/redis/client.js';
import type { RedisLink } from '../src/redis/link.js';
import type { RedisClientOptions } from '../src/redis/options.js';
import type { RedisState, StateEvent } from '../src/redis/reconnect.js';

/** The redis-server binary on PATH, or null. */
export const REDIS_SERVER: string | null = findOnPath('redis-server');
const ENV_URL = process.env.ROO_MODES_TEST_REDIS || undefined;

/** false when tests have a Redis; otherwise the one reason every Redis test skips with. */
export const redisMissing: string | false = REDIS_SERVER !== null || ENV_URL !== undefined
  ? false
  : 'no Redis for the tests of the Redis client and the shared store: redis-server is not on PATH and ROO_MODES_TEST_REDIS is not set';
/** For tests that restart, configure or password-protect their server: they need the binary. */
export const ownRedisMissing: string | false = REDIS_SERVER !== null
  ? false
  : redisMissing || 'this Redis test starts its own redis-server (not on PATH); ROO_MODES_TEST_REDIS gives only a shared one';

export interface TestRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM) and waits for it to exit; only for a server of the test's own. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same arguments and waits until it answers. */
  start(): Promise<void>;
}

export interface RedisServerOptions {
  /** Extra redis-server arguments (e.g. ['--requirepass', 'secret']). */
  args?: string[];
  /** Listen with TLS only on the port (the certificate files as redis-server takes them). */
  tls?: { cert: string; key: string; ca: string };
}

/** A Redis for the test: its own server when redis-server exists, else ROO_MODES_TEST_REDIS. */
export async function testRedis(t: TestContext): Promise<TestRedis> {
  if (REDIS_SERVER === null && ENV_URL !== undefined) {
    const refuse = (): Promise<void> => Promise.reject(new Error('ROO_MODES_TEST_REDIS is shared: not stopped or started by tests'));
    return { url: ENV_URL, port: Number(new URL(ENV_URL).port || 6379), stop: refuse, start: refuse };
  }
  return startRedis(t);
}

/** Starts a redis-server of the test's own on a free loopback port; stopped (and its folder removed) in t.after. */
export async function startRedis(t: TestContext, options: RedisServerOptions = {}): Promise<TestRedis> {
  if (REDIS_SERVER === null) throw new Error(ownRedisMissing || 'redis-server not found');
  const binary = REDIS_SERVER;
  const dir = mkdtempSync(join(tmpdir(), 'rms-redis-'));
  let child: ChildProcess | null = null;
  let port = 0;
  const args = (): string[] => [
    ...(options.tls
      ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', options.tls.cert, '--tls-key-file', options.tls.key,
        '--tls-ca-cert-file', options.tls.ca, '--tls-auth-clients', 'no']
      : ['--port', String(port)]),
    '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', ...(options.args ?? []),
  ];
  const stop = async (): Promise<void> => {
    const running = child;
    child = null;
    if (running === null || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGTERM');
    await exited;
  };
  const start = async (): Promise<void> => {
    const proc = spawn(binary, args(), { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    // A test process ended before t.after (a file timeout) takes its server with it.
    const reap = (): void => { proc.kill('SIGKILL'); };
    process.once('exit', reap);
    proc.once('exit', () => process.off('exit', reap));
    let output = '';
    proc.stdout?.setEncoding('utf8').on('data', (s: string) => { output += s; });
    proc.stderr?.setEncoding('utf8').on('data', (s: string) => { output += s; });
    const exited = new Promise<never>((_, reject) => proc.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before answering PING:\n${output}`))));
    exited.catch(() => undefined);
    await Promise.race([waitForPing(port, options.tls !== undefined, 10_000), exited]);
  };
  t.after(async () => { await stop(); rmSync(dir, { recursive: true, force: true }); });
  // A port found free can be taken before redis-server binds it: try again with another.
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      await start();
      break;
    } catch (err) {
      await stop();
      if (attempt >= 2) throw err;
    }
  }
  return { url: `${options.tls ? 'rediss' : 'redis'}://127.0.0.1:${port}`, port, stop, start };
}

/**
 * redis-server arguments that make a restart spend seconds LOADING its data: Redis's own test knob
 * `key-load-delay` (microseconds per key read at start), with events served every KiB of loading so
 * clients get `-LOADING` answers meanwhile. With saveFiller's keys saved, a start loads for ~1 ms a key.
 */
export const SLOW_LOADING_ARGS = ['--key-load-delay', '1000', '--loading-process-events-interval-bytes', '1024'];

/** Writes `count` small filler keys (outside any prefix the server uses) and SAVEs them to the dump the next start loads. */
export async function saveFiller(client: RedisClient, count: number): Promise<void> {
  for (let i = 0; i < count; i += 500) {
    const pairs = Array.from({ length: Math.min(500, count - i) }, (_, k) => [`filler:${i + k}`, 'x']).flat();
    await client.command('MSET', ...pairs);
  }
  assert.equal(await client.command('SAVE'), 'OK');
}

/** The first line Redis answers to an inline PING on a fresh connection ('+PONG', '-LOADING …'), without the client under test. */
export function pingLine(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: '127.0.0.1', port });
    let text = '';
    socket.setTimeout(5000, () => { socket.destroy(); reject(new Error(`no answer to PING on port ${port} within 5 s`)); });
    socket.once('error', reject);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.setEncoding('latin1').on('data', (chunk: string) => {
      text += chunk;
      const eol = text.indexOf('\r\n');
      if (eol !== -1) { socket.destroy(); resolve(text.slice(0, eol)); }
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls (every 20 ms, until the deadline) for any reply to an inline PING: +PONG, or -NOAUTH with a password. */
async function waitForPing(port: number, tls: boolean, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (await pingOnce(port, tls)) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function pingOnce(port: number, tls: boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const socket: Socket = tls
      ? tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false })
      : netConnect({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => { socket.destroy(); resolve(ok); };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once(tls ? 'secureConnect' : 'connect', () => socket.write('PING\r\n'));
    socket.once('data', (chunk: Buffer) => done(chunk[0] === 0x2b || chunk[0] === 0x2d));
  });
}

function findOnPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch { /* next */ }
  }
  return null;
}

/** `promise`, or a failure naming `what` after `ms`: waits in tests end by an event or by this deadline. */
export function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The next state event `state` of a client or subscriber (one registered before the action that causes it). */
export function nextState(link: RedisLink, state: RedisState, ms = 10_000): Promise<StateEvent> {
  return within(ms, `"${state}" event`, new Promise<StateEvent>((resolve) => {
    const off = link.onState((e) => { if (e.state === state) { off(); resolve(e); } });
  }));
}

/** A client on `url` (options as given), connected, and closed in t.after. */
export async function connectedClient(t: TestContext, options: RedisClientOptions): Promise<RedisClient> {
  const client = new RedisClient(options);
  t.after(() => client.close());
  await within(10_000, `connection to ${client.address}`, client.connected());
  return client;
}
