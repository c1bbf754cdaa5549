// `roo-modes-server add-to-mcp-config`: adds or updates this server's entry in an MCP client's
// config file. It never loses another entry, a comment or the old file, and never uses npx; a
// project file (shared through git) never gets a path of this machine.

import { createHash } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { copyFile, lstat, realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, posix, relative, win32 } from 'node:path';
import { backUp, DEFAULT_BACKUPS_KEEP, PROJECT_BACKUPS } from '../authoring/mode-writes.js';
import { makeFolder, writeFileAtomic } from '../files/atomic-write.js';
import { asWriteError, errnoOf, FileWriteError } from '../files/write-errors.js';
import { acquirePidLock, LockBusyError, type PidLock } from '../files/pid-lock.js';
import { readFileSafely, UnsafeFileError } from '../files/safe-read.js';
import { JsonSyntaxError, JsonTooDeepError, parseJson, STRICT_JSON } from '../jsonc/read.js';
import { CLIENTS, locate, homeOf, SHARED_LAUNCHER, sharedPlaces, type ClientName } from './mcp-clients.js';
import { mergeNestedMember } from '../jsonc/edit.js';
import { cliMessage, readCommand, UsageError, type Command, type Option, type Values } from './options.js';
import { cliProjectRoot } from './project-root.js';
import { findOnPath, notOnPathHint } from './on-path.js';

export interface AddToMcpConfigIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  selfCommand: string[];
  /** [absolute node path, absolute path of dist/main.cjs]: what a per-user file's entry runs. */
  entryCommand: string[];
  /** For tests: the OS whose locations apply and the directory standing for the project. */
  platform?: NodeJS.Platform;
  cwd?: string;
}

/** One --env value: a variable name, `=`, and its value. */
function envPair(pair: string): [string, string] {
  const at = pair.indexOf('=');
  if (at <= 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(pair.slice(0, at))) throw new UsageError(`--env expects KEY=VALUE with a variable name as KEY, got "${pair}"`);
  return [pair.slice(0, at), pair.slice(at + 1)];
}

const OPTIONS = [
  { name: '--client', kind: 'enum', value: 'NAME', choices: Object.keys(CLIENTS) as ClientName[], required: true,
    help: 'claude (global file), claude-code (.mcp.json), vscode (.vscode/mcp.json), roo (.roo/mcp.json), cursor (.cursor/mcp.json)' },
  { name: '--global', kind: 'switch', help: "use the client's per-user file instead of the project's (claude-code: ~/.claude.json; vscode, roo, cursor)" },
  { name: '--file', kind: 'string', value: 'PATH', help: 'edit this file instead of the standard location' },
  { name: '--name', kind: 'string', value: 'NAME', default: 'roo-modes', help: "the entry's name" },
  { name: '--project-root', kind: 'string', value: 'DIR',
    help: "the project: where project files live, and passed to the server (as the client's folder in a project file); it must exist and be a directory unless --force" },
  { name: '--sessions-dir', kind: 'string', value: 'DIR', help: 'passed to the server: sessions are kept in DIR' },
  { name: '--env', kind: 'string', value: 'KEY=VALUE', repeatable: true, parse: envPair, help: 'an environment variable for the server (repeatable)' },
  { name: '--force', kind: 'switch', help: 'accept a --project-root that does not exist (yet)' },
  { name: '--dry-run', kind: 'switch', help: 'print the resulting file; write nothing' },
] as const satisfies readonly Option[];

type Options = Values<typeof OPTIONS>;

const COMMAND: Command<typeof OPTIONS> = {
  name: 'add-to-mcp-config',
  usage: [`--client ${Object.keys(CLIENTS).join('|')} [options]`],
  about: "Adds (or updates) this server in the client's MCP config, keeping every other entry, key and comment.",
  options: OPTIONS,
  notes: `The old file is kept in the project's .roo/backups/ (a global file: beside it, as
FILE.bak-<timestamp>); the new one is written atomically.

A project file (.mcp.json, .vscode/mcp.json, .roo/mcp.json, .cursor/mcp.json) is shared with the
team, so its entry names no path of this machine: it runs roo-modes-server found on PATH (install
the package where the client runs; where PATH has none here, stderr says how), the server's
project is the client's own folder (VS Code: \${workspaceFolder}), and --sessions-dir is written
relative to the project or to ~. Without --project-root the file goes into the project found up
from the current folder (.roomodes, .roo/ or .git), as git finds its repository.
A per-user file (--global, --client claude) or --file gets this installation's absolute paths:
node and its dist/main.cjs, so it does not depend on PATH.`,
};

/** Client configs are a few KiB; anything past this is refused unread. */
const MAX_CONFIG_BYTES = 8 * 1024 * 1024;
/** How long a run waits for another run editing the same file. */
const LOCK_TIMEOUT_MS = 15_000;

const errCode = errnoOf;

/**
 * The file to read, back up and replace: through any symlinks, so the rename lands on the real
 * file and a linked config (dotfiles) stays a link. A path that does not exist yet is used as is;
 * a link to nothing is refused, since writing would replace the link with a file.
 */
export async function resolveTarget(file: string): Promise<string | { refused: string }> {
  try {
    return await realpath(file);
  } catch (err) {
    if (errCode(err) !== 'ENOENT') return { refused: `cannot use ${file}: ${reasonOf(err)}` };
  }
  const dangling = await lstat(file).then((st) => st.isSymbolicLink(), () => false);
  return dangling ? { refused: `${file} is a symbolic link to a file that does not exist; create that file or remove the link` } : file;
}

/**
 * Keeps a copy of `file` before it is replaced; returns the copy's path. A file inside `project`
 * goes to the project's one backups folder, `.roo/backups/<time>-config-<path>/` (where mode-file
 * writes keep theirs, the newest 20 kept), so a project ignores one folder instead of
 * `*.bak-*` files scattered beside its configs. A file elsewhere (a user's global config) is
 * copied beside itself as `FILE.bak-<time>`.
 */
export async function backup(file: string, project: string | null = null): Promise<string> {
  const rel = project === null ? '' : relative(project, file);
  if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) {
    const label = `config-${rel.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '')}`;
    const dir = await backUp(join(project!, PROJECT_BACKUPS), label, [file], DEFAULT_BACKUPS_KEEP);
    return join(dir!, basename(file));
  }
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  for (let n = 0; ; n++) {
    const target = `${file}.bak-${stamp}${n === 0 ? '' : `-${n}`}`;
    try {
      await copyFile(file, target, fsConstants.COPYFILE_EXCL);
      return target;
    } catch (err) {
      if (errCode(err) !== 'EEXIST' || n > 100) throw err;
    }
  }
}

/** `.<name>.lock`; a very long name is shortened (with a hash) so the lock's temp names still fit. */
function lockName(name: string): string {
  if (name.length <= 100) return `.${name}.lock`;
  return `.${name.slice(0, 60)}-${createHash('sha256').update(name).digest('hex').slice(0, 16)}.lock`;
}

const reasonOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The existing entry's `env` object ({} when there is none), kept whole so nothing in it is lost. */
function existingEnv(root: unknown, key: string, name: string): Record<string, unknown> {
  const object = (v: unknown): Record<string, unknown> | undefined =>
    (typeof v === 'object' && v !== null && !Array.isArray(v) ? v as Record<string, unknown> : undefined);
  return object(object(object(object(root)?.[key])?.[name])?.env) ?? {};
}

export async function runAddToMcpConfig(argv: string[], io: AddToMcpConfigIo): Promise<number> {
  const o = readCommand(COMMAND, argv, io);
  if (typeof o === 'number') return o;
  const client = o.client!;
  const spec = CLIENTS[client];
  const platform = io.platform ?? process.platform;
  const path = platform === 'win32' ? win32 : posix;
  const cwd = io.cwd ?? process.cwd();
  const projectRoot = o.projectRoot === undefined ? undefined : path.resolve(cwd, o.projectRoot);
  const shared = o.file === undefined && !o.global && spec.project !== undefined;
  // A project file goes to the project found up from here (as git finds its repository), not into
  // the subfolder the command was run in; the entry still names no folder (the client's own is used).
  // (ROO_PROJECT_ROOT is the server's variable, never read here; only the real platform's folders are walked.)
  const walk = shared && projectRoot === undefined && platform === process.platform;
  const project = projectRoot ?? (walk ? cliProjectRoot(undefined, { env: { ...io.env, ROO_PROJECT_ROOT: undefined }, err: io.err }, cwd) : cwd);
  const file = o.file !== undefined ? path.resolve(cwd, o.file) : locate(client, o.global, platform, io.env, project, path);
  if (projectRoot !== undefined && !o.force) {
    const info = await stat(projectRoot).catch(() => null);
    if (!info?.isDirectory()) {
      io.err(`roo-modes-server add-to-mcp-config: the project root ${projectRoot} ${info ? 'is not a directory' : 'does not exist'}; nothing was written (--force to add it anyway)\n`);
      return 2;
    }
  }
  // Where a backup of a project's config goes (its .roo/backups/); a --global file has none.
  const backupProject = o.global ? null : project;
  const sessionsDir = o.sessionsDir === undefined ? undefined : path.resolve(cwd, o.sessionsDir);
  const place = shared ? sharedPlaces(spec.projectVar, project, homeOf(platform, io.env), path) : null;
  const [command, ...entryArgs] = shared ? SHARED_LAUNCHER : io.entryCommand;
  if (command === undefined || (!shared && entryArgs.length === 0)) {
    io.err(`${cliMessage('add-to-mcp-config', 'the path of this installation is unknown (entryCommand is empty)')}\n`);
    return 1;
  }
  const sessionsArg = sessionsDir === undefined ? undefined : place === null ? sessionsDir : place(sessionsDir);
  if (sessionsArg === null) {
    io.err(`roo-modes-server add-to-mcp-config: --sessions-dir ${sessionsDir} is outside the project and the home folder, so the shared ${file} cannot name it; use --global or --file for a per-user file\n`);
    return 2;
  }
  // In a shared file the project is the client's own folder: named only where the client has a word for it.
  const rootArg = projectRoot === undefined ? undefined : place === null ? projectRoot : spec.projectVar;
  const entry: Record<string, unknown> = {
    ...(spec.stdioType ? { type: 'stdio' } : {}),
    command,
    args: [
      ...entryArgs,
      ...(rootArg === undefined ? [] : ['--project-root', rootArg]),
      ...(sessionsArg === undefined ? [] : ['--sessions-dir', sessionsArg]),
    ],
    ...(o.env.length > 0 ? { env: Object.fromEntries(o.env) } : {}),
  };
  const byHand = `Add this to the "${spec.key}" object by hand:\n${JSON.stringify({ [o.name]: entry }, null, 2).slice(2, -2)}\n`;
  const refuse = (why: string): number => {
    io.err(`${cliMessage('add-to-mcp-config', why)}\nThe file was not changed. ${byHand}`);
    return 1;
  };

  const target = await resolveTarget(file);
  if (typeof target !== 'string') return refuse(target.refused);
  if (o.dryRun) return edit(target, { file, o, spec, entry, io, refuse, dryRun: true, project: backupProject });
  // Read-modify-write under a lock beside the file: concurrent runs queue instead of each writing
  // its own edit of the same old text (ten parallel runs used to keep only three entries).
  try {
    await makeFolder(path.dirname(target));
  } catch (err) {
    return refuse(err instanceof FileWriteError ? err.message : `cannot create the folder of ${file}: ${reasonOf(err)}`);
  }
  let lock: PidLock;
  try {
    lock = await acquirePidLock(path.join(path.dirname(target), lockName(path.basename(target))), { timeoutMs: LOCK_TIMEOUT_MS });
  } catch (err) {
    // The lock file sits beside the config: a folder that refuses it refuses the write itself.
    const refused = asWriteError(err, file);
    if (refused instanceof FileWriteError) return refuse(refused.message);
    if (!(err instanceof LockBusyError)) return refuse(`cannot lock ${file}: ${reasonOf(err)}`);
    return refuse(`another run (${err.owner === null ? 'a process' : `process ${err.owner}`}) kept ${file} locked for ${LOCK_TIMEOUT_MS / 1000} s; try again`);
  }
  try {
    return await edit(target, { file, o, spec, entry, io, refuse, dryRun: false, project: backupProject });
  } finally {
    await lock.release();
  }
}

interface EditContext {
  file: string;
  o: Options;
  spec: (typeof CLIENTS)[ClientName];
  entry: Record<string, unknown>;
  io: AddToMcpConfigIo;
  refuse(why: string): number;
  dryRun: boolean;
  /** The project whose .roo/backups/ keeps the old file, when the file is in it; null: beside the file. */
  project: string | null;
}

/** Reads, merges and (unless a dry run) writes the config; returns the exit code. */
async function edit(target: string, c: EditContext): Promise<number> {
  const { file, o, spec, entry, io, refuse } = c;
  // A file too big or too deep to be a client config is refused whole: exit 2, one line.
  const limit = (why: string): number => { io.err(`${cliMessage('add-to-mcp-config', `${file} ${why}; the file was not changed`)}\n`); return 2; };
  let old: string | undefined;
  let keep: { uid: number; gid: number; mode: number } | undefined;
  try {
    const st = await stat(target);
    if (!st.isFile()) return refuse(`${file} exists but is not a regular file`);
    if ((st.mode & 0o222) === 0) return refuse(`${file} is read-only; make it writable (e.g. chmod u+w) and run again`);
    if (st.nlink > 1) return refuse(`${file} has ${st.nlink} hard links; replacing it would leave the other names with the old content. Edit it by hand, or remove the other links`);
    keep = { uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 };
    old = (await readFileSafely(target, { maxBytes: MAX_CONFIG_BYTES, links: 'follow' })).text;
  } catch (err) {
    if (err instanceof UnsafeFileError && err.reason === 'too_large') return limit(`is larger than ${MAX_CONFIG_BYTES} bytes, far more than a client config`);
    if (err instanceof UnsafeFileError && err.reason === 'missing') old = undefined;
    else if (errCode(err) !== 'ENOENT') return refuse(`cannot use ${file}: ${err instanceof UnsafeFileError ? err.problem : reasonOf(err)}`);
  }

  const base = old === undefined || old.trim() === '' ? '{}\n' : old;
  let outcome: ReturnType<typeof mergeNestedMember>;
  try {
    // --env adds to the variables the entry already has instead of dropping them.
    if (entry.env !== undefined) entry.env = { ...existingEnv(parseJson(base, spec.dialect).root.value, spec.key, o.name), ...entry.env as object };
    // An existing entry keeps its other keys (env, disabled, alwaysAllow...): only these are set.
    outcome = mergeNestedMember(base, spec.dialect, spec.key, o.name, entry);
  } catch (err) {
    if (err instanceof JsonTooDeepError) return limit(`is not a client config: at ${err.message}`);
    if (!(err instanceof JsonSyntaxError)) throw err;
    const strict = spec.dialect === STRICT_JSON ? ` (${spec.label} reads strict JSON: no comments, no trailing commas)` : '';
    return refuse(`${file} is not valid JSON at ${err.message}${strict}; fix it first`);
  }
  if (!outcome.ok) return refuse(`cannot edit ${file} safely: ${outcome.reason}`);
  const entryText = JSON.stringify(entry, null, 2);
  if (outcome.action === 'unchanged') {
    io.out(`unchanged: "${o.name}" in ${file} is already up to date\n`);
    warnIfNotOnPath(entry, io);
    return 0;
  }
  if (c.dryRun) {
    io.err(`dry run: would ${outcome.action === 'added' ? 'add' : 'update'} "${o.name}" in ${file}; the resulting file follows\n`);
    io.out(outcome.text);
    warnIfNotOnPath(entry, io);
    return 0;
  }
  let saved: string | undefined;
  try {
    if (old !== undefined) saved = await backup(target, c.project);
    // The new file keeps the old one's owner, group and mode, even when root runs this.
    await writeFileAtomic(target, outcome.text, keep === undefined ? {} : { keep });
  } catch (err) {
    if (errCode(err) === 'EPERM' && keep !== undefined) {
      return refuse(`cannot keep ${file} owned by uid ${keep.uid} gid ${keep.gid} when replacing it (${reasonOf(err)}); run as its owner`);
    }
    return refuse(err instanceof FileWriteError ? err.message : `cannot write ${file}: ${reasonOf(err)}`);
  }
  const verb = old === undefined ? 'created' : outcome.action;
  io.out(`${verb}: "${o.name}" in ${file}${saved === undefined ? '' : ` (previous version kept as ${saved})`}\n${entryText}\n`);
  warnIfNotOnPath(entry, io);
  return 0;
}

/**
 * A project file's entry runs `roo-modes-server` found on PATH: where PATH has none (the package is
 * not installed here), the client cannot start the server, so the user hears it now, with the fix.
 * A per-user entry runs absolute paths and needs no such check.
 */
function warnIfNotOnPath(entry: Record<string, unknown>, io: AddToMcpConfigIo): void {
  const command = entry.command;
  if (typeof command !== 'string' || command !== SHARED_LAUNCHER[0]) return;
  if (findOnPath(command, io.env, io.platform ?? process.platform) !== null) return;
  io.err(notOnPathHint('roo-modes-server add-to-mcp-config', command, 'this entry', io.entryCommand[1]));
}
