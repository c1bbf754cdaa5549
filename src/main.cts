#!/usr/bin/env node
// Entry point: fences console output to stderr, picks the subcommand, and for `serve` wires the
// three-stage pipeline (stdin reader → processor → stdout writer) or the HTTP door. The only file naming process.stdout.
//
// CommonJS (dist/main.cjs, the package's bin) on purpose: an ES module entry makes Node start its
// module loader, about 8 ms before any of our code runs, and `hook` runs before every tool call
// it guards. Everything but the hook is still ES modules, loaded with import() when asked for.
import { closeSync, createWriteStream, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, type WriteStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { homedir } from 'node:os';
import { Script } from 'node:vm';
import type { LogSink } from './log.js';

// stdout belongs to the writer: anything printed through console goes to stderr instead.
for (const name of ['log', 'info', 'debug', 'warn', 'trace'] as const) console[name] = console.error;

// Mode files bring their own regexes (fileRegex); src/modes/regex-safety.ts sets the V8 flags that
// bound their time, on load, before any of them is compiled.

/** The package's version, read when first asked (the hook never asks). */
let version: string | undefined;
const VERSION = (): string => (version ??= (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version);
const MAIN_PATH = __filename;

type Io = { out(text: string): void; err(text: string): void; env: NodeJS.ProcessEnv };
/**
 * Whoever reads our stdout may stop early (`… | head`): the pipe then fails with EPIPE. Every
 * subcommand writes through `io.out`, so this one place makes them all finish quietly, with their
 * own exit code and their files written, and print nothing more. `serve` adds its own listener.
 */
const stdoutClosed = new AbortController();
/** Listened to from the first write on: setting up process.stdout loads Node's stream modules, which `hook` does without. */
let stdoutWatched = false;
function stdout(): NodeJS.WriteStream {
  if (!stdoutWatched) {
    stdoutWatched = true;
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') process.stderr.write(`roo-modes-server: cannot write to stdout: ${err.message}\n`);
      stdoutClosed.abort();
    });
  }
  return process.stdout;
}
const io: Io = {
  out: (text) => { const out = stdout(); if (!stdoutClosed.signal.aborted) out.write(text); },
  err: (text) => { process.stderr.write(text); },
  env: process.env,
};

/**
 * The hook's code: the one-file CommonJS build of it (dist/roo-modes-check.cjs, made by
 * src/build/bundle-hook.mjs after tsc, the same file export writes into projects), which starts
 * without the ES module loader and without reading its modules one by one; the modules themselves
 * only where no bundle was built.
 */
async function hookModule(): Promise<typeof import('./cli/check-main.js')> {
  const bundle = join(__dirname, 'roo-modes-check.cjs');
  if (!existsSync(bundle)) return import('./cli/check-main.js');
  return require(bundle) as typeof import('./cli/check-main.js');
}

/**
 * What `serve` needs: from the one-file CommonJS build of the server (dist/serve.cjs, made by
 * src/build/bundle-serve.mjs after tsc), so a client's first answer waits for neither Node's ES
 * module loader nor thirty module reads; the ES modules themselves only where no bundle was built.
 */
async function serveModules(use: string): Promise<typeof import('./cli/serve-entry.js')> {
  const bundle = join(__dirname, 'serve.cjs');
  if (!existsSync(bundle)) return import('./cli/serve-entry.js');
  return requireCached(bundle, use) as typeof import('./cli/serve-entry.js');
}

// V8 flags the server sets while it runs (src/modes/regex-safety.ts when the modes load,
// src/http/heap-relief.ts for HTTP), set here before the bundles compile: V8 accepts a code cache
// only under the flags it was made with, and it is made at exit. test/unit/code-cache.test.ts
// checks this list against every flag src/ sets.
// --verify-snapshot-checksum makes V8 put a checksum in each cache it makes and check it before
// use: without it a damaged cache file was run as it was, and the server crashed at start.
const RUNTIME_V8_FLAGS = ['--enable-experimental-regexp-engine', '--enable-experimental-regexp-engine-on-excessive-backtracks', '--expose-gc', '--verify-snapshot-checksum'];

/** Scripts compiled without a usable cache, and where theirs goes. */
const uncached: { script: Script; at: string }[] = [];
let flagsSet = false;
/** Each bundle once per process, as require would: a second copy would have classes of its own. */
const loadedBundles = new Map<string, { exports: unknown }>();

/**
 * A bundle loaded as CommonJS through V8's code cache (Node 20 has no module compile cache):
 * compiling the two bundles' code was about a quarter of a server's CPU from its start through
 * loading the modes, in every start. The cache lives in dist/.code-cache/, one file per
 * bundle, build (the id on the bundle's first line), Node version, flags and place, and use (the
 * subcommand; serve over stdio or HTTP): a missing or rejected one is written at exit, when the
 * functions the run compiled are in it, and a cache V8 accepts is never written again, so each use
 * keeps one made by a run of its own kind. A cache that cannot be read or written only costs the
 * compile it would have saved.
 */
function requireCached(file: string, use: string): unknown {
  const done = loadedBundles.get(file);
  if (done !== undefined) return done.exports;
  const source = readFileSync(file, 'utf8');
  const build = /^\/\/ build ([0-9a-f]{16})\n/.exec(source)?.[1];
  let at: string | undefined;
  let cachedData: Buffer | undefined;
  if (build !== undefined) {
    if (!flagsSet) {
      flagsSet = true;
      const { setFlagsFromString } = require('node:v8') as typeof import('node:v8');
      for (const flag of RUNTIME_V8_FLAGS) setFlagsFromString(flag);
    }
    at = join(dirname(file), '.code-cache', `${file.slice(dirname(file).length + 1)}-${build}-${runtimeKey(file)}-${use}.bin`);
    try { cachedData = readFileSync(at); } catch { /* none yet */ }
  }
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${source}\n})`;
  const script = new Script(wrapped, { filename: file, ...(cachedData !== undefined ? { cachedData } : {}) });
  if (at !== undefined) {
    if (cachedData === undefined || script.cachedDataRejected === true) {
      if (uncached.length === 0) process.once('exit', writeCodeCaches);
      uncached.push({ script, at });
    }
  }
  const module = { exports: {} as unknown };
  loadedBundles.set(file, module);
  const dir = dirname(file);
  const req = (id: string): unknown => (id.startsWith('./') ? requireCached(join(dir, id), use) : require(id));
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, req, module, file, dir);
  return module.exports;
}

/**
 * What V8 checks a cache against besides the text: its version (with the machine kind) and the flags
 * this process started with; and the Node binary itself, since two builds of one version may differ.
 * And where the bundle is: V8 keeps the file name a cache was made under, so a dist/ moved with its
 * caches would name the old place in every stack trace.
 */
function runtimeKey(file: string): string {
  let h = 0x811c9dc5;
  for (const ch of `${process.version}\0${process.execPath}\0${process.arch}\0${process.execArgv.join('\0')}\0${process.env.NODE_OPTIONS ?? ''}\0${file}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return `${process.version}-${h.toString(16).padStart(8, '0')}`;
}

/** At exit: each cache that was missing or rejected, written aside and renamed into place. */
function writeCodeCaches(): void {
  for (const { script, at } of uncached) {
    try {
      mkdirSync(dirname(at), { recursive: true });
      const aside = `${at}.${process.pid}`;
      writeFileSync(aside, script.createCachedData());
      renameSync(aside, at);
    } catch { /* a read-only install: every start compiles, as without a cache */ }
  }
}

type Run = (rest: string[]) => Promise<number>;
const self = [process.execPath, MAIN_PATH];
/** A subcommand's module, from the bundle when there is one (see serve-entry.ts). */
const cli = async <K extends keyof typeof import('./cli/serve-entry.js').commands>(name: K): Promise<Awaited<ReturnType<typeof import('./cli/serve-entry.js').commands[K]>>> =>
  (await serveModules(name)).commands[name]() as Promise<Awaited<ReturnType<typeof import('./cli/serve-entry.js').commands[K]>>>;
/** The subcommands: each loads its module only when run (the hook first of all must start fast). */
const COMMANDS: Readonly<Record<string, Run>> = {
  modes: async (rest) => (await cli('modes')).runModes(rest, io),
  validate: async (rest) => (await cli('validate')).runValidate(rest, io),
  'export-mode': async (rest) => (await cli('exchange')).runExportMode(rest, io),
  'import-mode': async (rest) => (await cli('exchange')).runImportMode(rest, io),
  call: async (rest) => (await cli('call')).runCall(rest, { ...io, selfCommand: self }),
  'add-to-mcp-config': async (rest) => (await cli('addToMcpConfig')).runAddToMcpConfig(rest, { ...io, selfCommand: self, entryCommand: self }),
  demo: async (rest) => (await cli('demo')).runDemo(rest, { ...io, selfCommand: self }),
  'generate-config': async (rest) => (await cli('generateConfig')).runGenerateConfig(rest, io),
  hook: async (rest) => {
    // Code that cannot load judges nothing: exit 2, which every agent that runs the hook takes as a
    // refusal (any other failure exit would let the call through in some of them).
    let hook: Awaited<ReturnType<typeof hookModule>>;
    try { hook = await hookModule(); } catch (err) {
      io.err(`roo-modes-server hook: cannot load the hook's code: ${err instanceof Error ? err.message : String(err)}\n`);
      return 2;
    }
    // The check's own ways to stdout and stdin (src/cli/check-main.ts), which spare the hook Node's stream modules.
    return hook.runHook(rest, { ...io, out: hook.writeOut, stdin: hook.readStdin, stdinIsTerminal: hook.stdinIsTerminal() });
  },
  export: async (rest) => (await cli('export')).runExport(rest, { ...io, mainPath: MAIN_PATH }),
  help: async (rest) => {
    if (rest.length > 0) return usageError(`unexpected argument ${JSON.stringify(rest[0])}`);
    io.out((await serveModules('help')).serveHelp(VERSION()));
    return 0;
  },
  serve: (rest) => serve(rest),
};

/** A top-level usage error in the form every subcommand uses; exit code 2. */
async function usageError(message: string): Promise<number> {
  io.err(`${(await cli('options')).usageMessage('', message)}\n`);
  return 2;
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first.startsWith('-')) return serve(argv);
  if (Object.prototype.hasOwnProperty.call(COMMANDS, first)) return COMMANDS[first]!(rest);
  const { meant } = await cli('options');
  return usageError(`unknown command ${JSON.stringify(first)}${meant(first, Object.keys(COMMANDS))}`);
}

async function serve(argv: string[]): Promise<number> {
  // Loaded here, not at the top: `hook` runs before every tool call of another agent and must
  // start as fast as Node itself, so the entry point pulls in the server only when it serves.
  const { runReader, runWriter, Core, createLogger, parseServeArgs, serveHelp, checkProjectRoot, ConfigError, effectiveLogLevel, loadConfig, httpDoor, sessionFolderCheck, findProjectRoot, rootNotice } = await serveModules(argv.includes('--http') ? 'serve-http' : 'serve');
  let config;
  let args;
  try {
    args = parseServeArgs(argv);
    if (args.help) { io.out(serveHelp(VERSION())); return 0; }
    if (args.version) { io.out(`${VERSION()}\n`); return 0; }
    config = await loadConfig(args, process.env, process.cwd(), (warning) => io.err(`roo-modes-server: ${warning}\n`));
    await checkProjectRoot(config.paths.project_root);
  } catch (err) {
    if (err instanceof ConfigError) { io.err(`roo-modes-server: ${err.message}\n`); return 2; }
    throw err;
  }
  const store = config.sessions.persistence;
  if (store.enabled) {
    // Checked before serving: a store that cannot work is a clear exit 2, not a failing tool later.
    const problem = await (await sessionFolderCheck()).storeFolderProblem(store.storage_path);
    if (problem !== null) { io.err(`roo-modes-server: sessions.persistence.storage_path ${store.storage_path} ${problem}\n`); return 2; }
  }
  let logStream: WriteStream | null = null;
  if (config.logging.file !== null) {
    // Checked once, before serving, so a bad path is a clear exit 2 rather than lost logs.
    // Its folder is ours to make (the seed's ~/.roo-code/mcp_modes_server.log on a fresh machine).
    try { mkdirSync(dirname(config.logging.file), { recursive: true }); closeSync(openSync(config.logging.file, 'a')); } catch (err) {
      io.err(`roo-modes-server: cannot open the log file ${config.logging.file}: ${(err as Error).message}\n`);
      return 2;
    }
    logStream = createWriteStream(config.logging.file, { flags: 'a' });
    logStream.on('error', () => { /* a log file that breaks later must not take the server down */ });
  }
  const toFile = logStream;
  const sink: LogSink = {
    level: effectiveLogLevel(config),
    write: toFile ? (line) => { toFile.write(line); } : (line) => { process.stderr.write(line); },
    forward: null,
  };
  const log = createLogger(sink);
  // No project named (flag, environment, config file): the nearest folder up from here that holds
  // .roomodes, .roo/ or .git, said on stderr when it is not this one (stdout is the protocol's).
  let workingRoot = process.cwd();
  if (config.paths.project_root === null) {
    const found = findProjectRoot(workingRoot, { homeDir: process.env.HOME || homedir() });
    const note = rootNotice(found, 'roo-modes-server');
    if (note !== null) io.err(note);
    workingRoot = found.root;
  }
  // Over HTTP many clients share one server: the project is fixed at start (configured or found),
  // never switched by one client's roots.
  if (args.http && config.paths.project_root === null) config = { ...config, paths: { ...config.paths, project_root: workingRoot } };
  const core = new Core(config, VERSION(), sink, log, workingRoot);
  if (args.http) return (await httpDoor()).serveHttp(core, args, { err: io.err, closeLog: () => closeLog(logStream) });
  const stop = new AbortController();
  const stdoutGiveUp = new AbortController();
  /** After a signal: how long in-flight work may run on, and how long stdout may take nothing. */
  const STALL_MS = 2000;
  // One connection over stdin/stdout: the same core the HTTP door opens one per session.
  const conn = core.open({ incomingCapacity: 256, outgoingCapacity: 1024, maxInFlight: 64 });
  const { processor, incoming, outgoing } = conn;

  // A closed stdout (EPIPE) means the client is gone: stop quietly.
  stdout().on('error', () => { stop.abort(); });
  // A signal ends the input like EOF does; the processor then drains with a short grace (in-flight
  // work is told to stop after two seconds, and its answers still go out). If the client is not
  // reading stdout, answers cannot drain: once stdout has taken nothing for two seconds while
  // holding unsent bytes, the writer gives up on it and discards what is left, so the server still
  // exits (persistence flushed as usual). A client that reads, however slowly, gets every answer.
  const onSignal = (): void => {
    stop.abort();
    setTimeout(() => processor.abortAll(), STALL_MS).unref();
    const out = process.stdout as NodeJS.WriteStream & { bytesWritten?: number };
    let sent = out.bytesWritten ?? 0;
    let stalledSince = Date.now();
    const watch = setInterval(() => {
      const now = out.bytesWritten ?? 0;
      if (now !== sent || out.writableLength === 0) { sent = now; stalledSince = Date.now(); return; }
      if (Date.now() - stalledSince >= STALL_MS) { clearInterval(watch); stdoutGiveUp.abort(); }
    }, STALL_MS / 8);
    watch.unref();
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);

  // Started by hand in a terminal, a server waiting on stdin looks like a hang: one line says why.
  // The hint names a command that runs here: in a clone not yet on PATH, `node dist/main.cjs`.
  if (process.stdin.isTTY) {
    const me = (await import('./cli/on-path.js')).selfCommand(process.env, MAIN_PATH, process.cwd());
    io.err(`roo-modes-server: waiting for an MCP client on stdin (one JSON-RPC message per line; Ctrl-D ends). To try it by hand: ${me} demo, or ${me} --help\n`);
  }
  const writer = runWriter(outgoing, process.stdout, stdoutGiveUp.signal);
  const reader = runReader(process.stdin, incoming, config.server.max_message_bytes, stop.signal);
  await conn.done;
  outgoing.close();
  await Promise.all([reader, writer]);
  await core.close();
  process.stdin.destroy();
  await closeLog(logStream);
  // A write still pending on a pipe nobody reads would keep the process alive for ever; once the
  // writer gave up on stdout (signal + stalled client), everything else is closed and we leave.
  if (stdoutGiveUp.signal.aborted) process.exit(0);
  return 0;
}

function closeLog(stream: WriteStream | null): Promise<void> {
  return stream ? new Promise<void>((resolve) => stream.end(resolve)) : Promise.resolve();
}

const command = process.argv[2] !== undefined && Object.prototype.hasOwnProperty.call(COMMANDS, process.argv[2]) ? process.argv[2] : '';
main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  async (err: unknown) => {
    process.exitCode = 1;
    // An error we raised on purpose (a file the OS would not let us write, say) already says what
    // and where in one line; only a bug earns a stack trace.
    // From the bundle the command ran from (the same module instances, so instanceof holds).
    const { RpcError, cliMessage } = await serveModules(command === '' ? 'serve' : command);
    const text = err instanceof RpcError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`${cliMessage(command === 'serve' ? '' : command, text)}\n`);
  },
);
