// Shared bench machinery: spawning the real server and the floor over pipes, matching answers by id,
// statistics, /proc RSS, generated mode files and the result rows. Never imports src/ or dist/.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { kinds, peerCommand } from './peer-command.mjs';

export { kinds, peerCommand } from './peer-command.mjs';

export const REPO = fileURLToPath(new URL('..', import.meta.url));
/** The server under test: the package's bin (dist/main.cjs); BENCH_SERVER_MAIN points the bench at another build (to compare a fix). */
export const SERVER_MAIN = process.env.BENCH_SERVER_MAIN ?? join(REPO, 'dist', 'main.cjs');
export const FLOOR_MAIN = fileURLToPath(new URL('./floor-server.mjs', import.meta.url));
/** Preloaded into peers by the memory and latency figures; see bench/probe.cjs and Peer.probe(). */
export const PROBE = fileURLToPath(new URL('./probe.cjs', import.meta.url));
export const PROTOCOL = '2025-11-25';
export const now = () => performance.now();

const ID_PREFIX = '{"jsonrpc":"2.0","id":';
const RESULT_FIRST = '{"result":';

/** The environment for children: the caller's, minus the server's own variables (they would change what is measured). */
function childEnv() {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('ROO_')) delete env[key];
  return env;
}

/**
 * One spawned peer (our server or the floor) and the client end of its pipes. Answers are matched
 * by id without parsing the whole line: both peers write `{"jsonrpc":"2.0","id":…` first, and the
 * key after the id says result or error. Lines are only parsed when a caller asks for the result.
 */
export class Peer {
  constructor(kind, child) {
    this.kind = kind;
    this.child = child;
    this.pid = child.pid;
    this.nextId = 1;
    this.pending = new Map();
    this.burst = null;
    this.stderrTail = '';
    this.pieces = [];
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      child.once('error', (err) => { this.stderrTail += `\ncould not start: ${err.message}`; resolve({ code: null, signal: null }); });
    });
    // A peer that dies (or never started) answers every open request with an error, so a figure
    // fails with the reason instead of waiting forever.
    void this.exited.then(({ code, signal }) => {
      for (const [id, waiter] of this.pending) {
        waiter(`{"jsonrpc":"2.0","id":${id},"error":{"code":-1,"message":${JSON.stringify(`${this.kind} exited (${code ?? signal}): ${this.stderrTail.slice(-300)}`)}}}`);
      }
      this.pending.clear();
    });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => this.#onData(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => { this.stderrTail = (this.stderrTail + chunk).slice(-4000); });
    child.stdin.on('error', () => { /* the peer went away; exited says why */ });
  }

  /**
   * kind 'ours' runs dist/main.js with `args`; kind 'floor' runs the floor script (its only arg: an
   * answer size); kind 'sdk' runs the SDK peer's command (it takes no args; `nodeArgs` go to its node).
   */
  static start(kind, { args = [], cwd = tmpdir(), nodeArgs = [], env = {} } = {}) {
    if (kind === 'sdk') {
      const cmd = peerCommand();
      if (cmd === null) throw new Error('no SDK peer: run ../shared/bench-peer/run.sh or set BENCH_PEER_CMD');
      const [exe, ...rest] = cmd;
      const child = spawn(exe === 'node' ? process.execPath : exe, [...nodeArgs, ...rest], { cwd, env: { ...childEnv(), ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
      return new Peer(kind, child);
    }
    const script = kind === 'floor' ? FLOOR_MAIN : SERVER_MAIN;
    // BENCH_SERVER_NODE_ARGS (set by `run.mjs --cpu-prof`) adds node flags to our server only.
    const extra = kind === 'ours' ? (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean) : [];
    const child = spawn(process.execPath, [...extra, ...nodeArgs, script, ...args], {
      cwd, env: { ...childEnv(), ...env }, stdio: ['pipe', 'pipe', 'pipe'],
    });
    return new Peer(kind, child);
  }

  /** What bench/probe.cjs (preloaded) saw inside the peer since the last call; see that file. */
  probe() {
    return new Promise((resolve, reject) => {
      let seen = '';
      const stderr = this.child.stderr;
      const timer = setTimeout(() => { stderr.off('data', onData); reject(new Error(`${this.kind}: no probe answer within 30 s (started without bench/probe.cjs?)`)); }, 30_000);
      const onData = (chunk) => {
        seen += chunk;
        const m = /bench-probe (\{.*\})\n/.exec(seen);
        if (!m) return;
        clearTimeout(timer);
        stderr.off('data', onData);
        resolve(JSON.parse(m[1]));
      };
      stderr.on('data', onData);
      process.kill(this.pid, 'SIGUSR2');
    });
  }

  // Only the new chunk is searched for newlines; pieces of an unfinished (long) line are joined
  // once, when it ends, so a multi-megabyte answer costs linear time here too.
  #onData(chunk) {
    this.bytesRead = (this.bytesRead ?? 0) + chunk.length;
    let start = 0;
    for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', start)) {
      const piece = chunk.slice(start, nl);
      if (this.pieces.length > 0) {
        this.pieces.push(piece);
        this.#onLine(this.pieces.join(''));
        this.pieces = [];
      } else this.#onLine(piece);
      start = nl + 1;
    }
    if (start < chunk.length) this.pieces.push(chunk.slice(start));
  }

  #onLine(line) {
    let id;
    let isError;
    if (line.startsWith(ID_PREFIX)) {
      const end = line.indexOf(',', ID_PREFIX.length);
      id = Number(line.slice(ID_PREFIX.length, end));
      isError = line.startsWith('"error"', end + 1);
    } else if (line.startsWith(RESULT_FIRST)) {
      // The SDK writes results as {"result":…,"jsonrpc":"2.0","id":N}: the envelope's id is the
      // last `"id":` of the line (inside strings a quote is escaped, so none matches there).
      id = Number(line.slice(line.lastIndexOf('"id":') + 5, -1));
      isError = false;
    } else return; // notifications (none are asked for) or noise
    if (this.burst !== null) {
      const b = this.burst;
      b.left--;
      if (isError) { b.errors++; b.firstError ??= line.slice(0, 300); }
      if (b.left === 0) { this.burst = null; b.resolve(now()); }
      return;
    }
    const waiter = this.pending.get(id);
    if (waiter) { this.pending.delete(id); waiter(line); }
  }

  /** Sends one request; resolves with the raw answer line. */
  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.child.stdin.write(`{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${JSON.stringify(params ?? {})}}\n`);
    });
  }

  /** Sends one request and returns its parsed result; an error answer throws. */
  async call(method, params) {
    const msg = JSON.parse(await this.request(method, params));
    if (msg.error) throw new Error(`${this.kind}: ${method} answered ${msg.error.code} ${msg.error.message}${this.stderrTail ? `; its stderr ends: ${this.stderrTail.slice(-800)}` : ''}`);
    return msg.result;
  }

  tool(name, args) { return this.call('tools/call', { name, arguments: args }); }

  notify(method, params) {
    this.child.stdin.write(`{"jsonrpc":"2.0","method":${JSON.stringify(method)}${params ? `,"params":${JSON.stringify(params)}` : ''}}\n`);
  }

  async initialize() {
    const result = await this.call('initialize', { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
    this.notify('notifications/initialized');
    return result;
  }

  /** Numbers `count` request lines from `make(i, id)` (which returns `{method, params}`) into one text. */
  lines(count, make) {
    const parts = new Array(count);
    for (let i = 0; i < count; i++) {
      const id = this.nextId++;
      const { method, params } = make(i);
      parts[i] = `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}\n`;
    }
    return { text: parts.join(''), count };
  }

  /** Writes a prepared text of requests at once and waits for every answer: {ms, errors, firstError}. */
  pipeline({ text, count }) {
    return new Promise((resolve, reject) => {
      const t0 = now();
      this.burst = { left: count, errors: 0, firstError: undefined, resolve: (t1) => resolve({ ms: t1 - t0, errors: b.errors, firstError: b.firstError }) };
      const b = this.burst;
      this.exited.then(({ code }) => { if (this.burst === b) reject(new Error(`${this.kind} exited (${code}) during a pipeline: ${this.stderrTail.slice(-500)}`)); });
      this.child.stdin.write(text);
    });
  }

  /** VmRSS of the peer process in bytes (from /proc/<pid>/status). */
  rss() { return rssOf(this.pid); }

  /** Closes stdin and waits for a clean exit; a peer still running after `ms` is sent SIGTERM. */
  async stop(ms = 5000) {
    this.child.stdin.end();
    const timer = setTimeout(() => { this.child.kill('SIGTERM'); }, ms);
    const out = await this.exited;
    clearTimeout(timer);
    return out;
  }
}

/** CPU time (user + system) the process has used so far, in ms (from /proc/<pid>/stat, 10 ms ticks). */
export function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) * 1024;
}

// ---- statistics -------------------------------------------------------------------------------

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/**
 * Runs `fn(kind, round)` for every kind (default: floor, ours and the SDK peer when installed),
 * rotating which goes first each round so no peer always meets the same neighbour or machine state.
 */
export async function alternate(rounds, fn, list = kinds()) {
  const out = Object.fromEntries(list.map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? [...list] : [...list].reverse();
    const shift = Math.floor(r / 2) % list.length;
    for (const kind of [...order.slice(shift), ...order.slice(0, shift)]) out[kind].push(await fn(kind, r));
  }
  return out;
}

// ---- files ------------------------------------------------------------------------------------

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(label) {
  const dir = mkdtempSync(join(tmpdir(), `roo-bench-${label}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

// Six group layouts, used in turn, so every generated file mixes the shapes real .roomodes have:
// plain groups, edit restricted by a file regex, an MCP allow-list, block and flow YAML.
const GROUP_LAYOUTS = [
  ['    groups:', '      - read', '      - edit', '      - browser', '      - command', '      - mcp'],
  ['    groups:', '      - read', '      - - edit', "        - fileRegex: '\\.(md|mdx)$'", '          description: Markdown files only', '      - browser', '      - mcp'],
  ['    groups: [read, browser, mcp]'],
  ['    groups:', '      - read', "      - [edit, {fileRegex: '^(src|test)/.*\\.ts$', description: TypeScript sources}]", '      - command'],
  ['    groups:', '      - read', '      - - mcp', "        - tools: ['mcp__github__*', 'mcp__fs__read_file']"],
  ['    groups:', '      - modes'],
];

/** The text of a project .roomodes (YAML) holding `count` valid custom modes with realistic text. */
export function roomodesYaml(count) {
  const out = ['customModes:'];
  for (let i = 0; i < count; i++) {
    const n = String(i).padStart(5, '0');
    out.push(
      `  - slug: gen-${n}`,
      `    name: Generated mode ${n}`,
      '    roleDefinition: |-',
      `      You are Roo in the role of specialist ${n}. You read the code base before you change it,`,
      '      keep changes small and reviewed, explain the reasons for each step and leave the project',
      '      in a state where the tests pass.',
      `    whenToUse: Use this mode for work of kind ${n}, when a careful specialist is wanted.`,
      `    description: Specialist ${n} for focused work`,
      '    customInstructions: |-',
      '      Follow the style guide. Prefer small commits. Ask before deleting files.',
      ...GROUP_LAYOUTS[i % GROUP_LAYOUTS.length],
    );
  }
  return `${out.join('\n')}\n`;
}

/** A project directory whose .roomodes holds `count` generated modes, and an empty config dir. */
export function projectWithModes(count) {
  const t = tempDir(`modes${count}`);
  const file = join(t.dir, '.roomodes');
  const text = roomodesYaml(count);
  writeFileSync(file, text);
  const configDir = join(t.dir, 'global-config');
  return { ...t, file, bytes: Buffer.byteLength(text), configDir };
}

// Reporting (rows, the table, number formats) lives in report.mjs; re-exported for the figures.
export * from './report.mjs';
