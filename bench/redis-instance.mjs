// A redis-server of the bench's own (free loopback port, temporary folder, AOF as docs/deployment.md
// recommends) and the few INFO figures the store bench reads. Never touches a Redis it did not start.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { connect, createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { tempDir } from './lib.mjs';

/** The redis-server binary on PATH, or null. */
export function redisServerBinary() {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    try { accessSync(join(dir, 'redis-server'), constants.X_OK); return join(dir, 'redis-server'); } catch { /* next */ }
  }
  return null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

/**
 * One inline command on a fresh connection; resolves with the reply's text (a bulk string's body,
 * or a status line). Enough for INFO and FLUSHALL; not a Redis client.
 */
export function command(port, line) {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => { sock.destroy(); reject(new Error(`redis on port ${port}: no answer to ${line} within 5 s`)); }, 5000);
    sock.once('error', (err) => { clearTimeout(timer); reject(err); });
    sock.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      const eol = buf.indexOf('\r\n');
      if (eol === -1) return;
      const first = buf.subarray(0, eol).toString('latin1');
      let text;
      if (first[0] === '$') {
        const n = Number(first.slice(1));
        if (buf.length < eol + 2 + n + 2) return;
        text = buf.subarray(eol + 2, eol + 2 + n).toString('utf8');
      } else if (first[0] === '-') {
        clearTimeout(timer); sock.destroy(); reject(new Error(`redis: ${line} answered ${first}`)); return;
      } else text = first.slice(1);
      clearTimeout(timer);
      sock.destroy();
      resolve(text);
    });
    sock.write(`${line}\r\n`);
  });
}

/** What the store bench reads from INFO: CPU seconds, commands processed, and calls per command. */
export async function redisCounters(port) {
  const text = await command(port, 'INFO cpu stats commandstats');
  const num = (name) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(text)?.[1] ?? NaN);
  const calls = {};
  for (const m of text.matchAll(/^cmdstat_([a-z|_-]+):calls=(\d+)/gm)) calls[m[1]] = Number(m[2]);
  return { cpuS: num('used_cpu_sys') + num('used_cpu_user'), commands: num('total_commands_processed'), calls };
}

/** Starts redis-server on a free port; resolves once it answers PING. */
export async function startRedis(binary) {
  const t = tempDir('redis');
  const port = await freePort();
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--dir', t.dir, '--save', '',
    '--appendonly', 'yes', '--appendfsync', 'everysec', '--daemonize', 'no'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (c) => { err += c; });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (const deadline = Date.now() + 10_000; ;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}): ${err.slice(-300)}`);
    try { if (await command(port, 'PING') === 'PONG') break; } catch { /* not up yet */ }
    if (Date.now() > deadline) { child.kill('SIGKILL'); throw new Error(`redis-server on port ${port} did not answer PING within 10 s`); }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url: `redis://127.0.0.1:${port}`, port, pid: child.pid,
    async stop() { child.kill('SIGTERM'); await exited; t.cleanup(); },
  };
}
