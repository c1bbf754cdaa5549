// A scope's change of several files made whole: new rules folders and the new mode file are staged
// beside the real ones, a journal records them, then they are swapped in, the mode file last; a
// change cut short is finished at the next start or write. Also clears our dead writers' leftovers.
// It never removes or renames a name it did not make, and runs only under the mode file's lock.
import { lstat, mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { makeFolder, removeFile, syncDirectory, tempSuffix, writeFileAtomic, writeFlushed } from '../files/atomic-write.js';
import { asTargetError } from '../files/write-errors.js';
import { processAlive } from '../files/pid-lock.js';
import { readFileSafely, UnsafeFileError } from '../files/safe-read.js';
import { ValidationError } from '../rpc/errors.js';
import { commitState, pendingWrite } from './turn-fence.js';

// How it works. Every staged name ends in `<pid>.<random>.tmp` (the journal's `suffix`):
//   <mode file's folder>/.<mode file>.<suffix>     the new mode file, complete and fsynced
//   <rooDir>/.rules-<slug>.<suffix>/                a new rules folder, complete and fsynced
//   <rooDir>/.rules-<slug>.old.<suffix>             the old rules folder, moved aside during the swap
// The journal `<mode file>.journal` is written (atomically) only once everything is staged: that is
// the commit. Before it, a crash leaves only staged leftovers (removed once their writer is dead),
// so the project is as it was. After it, rolling forward is idempotent: each rules folder is moved
// aside and its staged one renamed in (a step already done is seen and skipped), then the mode file
// is renamed over, then the asides and the journal go. The journal holds no paths: only the suffix
// and slugs, checked, from which the names above are built, so a planted journal cannot aim anywhere.
// With the shared store the commit is the store's record of the new mode file (turn-fence.ts), made
// after the journal is written: the journal then names that write (`commit`), and a finisher rolls
// it forward only when the record holds it, back (staged names removed) when it does not.

export interface JournalScope { modeFile: string; rooDir: string }
export interface StagedFolder { slug: string; files: readonly { path: string; content: string }[] }

const SUFFIX = /^\d+\.[0-9a-f]+\.tmp$/;
const SLUG = /^[a-zA-Z0-9-]+$/;
const MAX_JOURNAL_BYTES = 64 * 1024;
// Leftovers of this very pid (a previous process that had the same pid) go once this old.
const OWN_LEFTOVER_MS = 10_000;

interface Journal { format: 1; suffix: string; rules: string[]; commit?: string }

const journalPath = (s: JournalScope): string => `${s.modeFile}.journal`;
const rulesDir = (s: JournalScope, slug: string): string => join(s.rooDir, `rules-${slug}`);
const stagedDir = (s: JournalScope, slug: string, suffix: string): string => join(s.rooDir, `.rules-${slug}.${suffix}`);
const asideDir = (s: JournalScope, slug: string, suffix: string): string => join(s.rooDir, `.rules-${slug}.old.${suffix}`);
const stagedModeFile = (s: JournalScope, suffix: string): string => join(dirname(s.modeFile), `.${basename(s.modeFile)}.${suffix}`);
const present = (p: string): Promise<boolean> => lstat(p).then(() => true, () => false);
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Writes `text` as the mode file and each folder as `rules-<slug>/` (replacing the old), all or nothing. */
export async function commitWhole(scope: JournalScope, text: string, folders: readonly StagedFolder[]): Promise<void> {
  const w = pendingWrite(scope.modeFile, text);
  const journal: Journal = { format: 1, suffix: tempSuffix(), rules: folders.map((f) => f.slug), ...(w.id === null ? {} : { commit: w.id }) };
  let journaled = false;
  try {
    await stage(scope, journal.suffix, text, folders);
    // Without a store the journal is the commit point: once written, any writer finishes the change.
    await writeFileAtomic(journalPath(scope), `${JSON.stringify(journal)}\n`);
    journaled = true;
    await w.commit();
  } catch (err) {
    // Not committed: what was staged goes now rather than waiting for a later sweep. A journal left
    // behind names a write the store refused (or may not have), and the next turn rolls it back; it
    // is never removed here, where it may already be another writer's.
    if (!journaled) {
      for (const f of folders) await rm(stagedDir(scope, f.slug, journal.suffix), { recursive: true, force: true }).catch(() => undefined);
      await rm(stagedModeFile(scope, journal.suffix), { force: true }).catch(() => undefined);
    }
    throw err;
  }
  await rollForward(scope, journal);
  await w.landed();
}

/** Writes the new rules folders and mode file under their staged names, each flushed to disk. */
async function stage(scope: JournalScope, suffix: string, text: string, folders: readonly StagedFolder[]): Promise<void> {
  const dirs = new Set<string>();
  for (const f of folders) {
    const root = stagedDir(scope, f.slug, suffix);
    // A refusal names the live path the caller asked for, not the staged name it never heard of.
    const live = rulesDir(scope, f.slug);
    await makeFolder(root).catch((err: unknown) => { throw asTargetError(err, live, 'create the folder'); });
    dirs.add(root);
    for (const file of f.files) {
      const path = join(root, file.path);
      await mkdir(dirname(path), { recursive: true }).catch((err: unknown) => { throw asTargetError(err, live, 'create the folder'); });
      dirs.add(dirname(path));
      await writeFlushed(path, file.content).catch((err: unknown) => { throw asTargetError(err, join(live, file.path)); });
    }
  }
  for (const d of dirs) await syncDirectory(d);
  if (folders.length > 0) await syncDirectory(scope.rooDir);
  await makeFolder(dirname(scope.modeFile));
  await writeFlushed(stagedModeFile(scope, suffix), text).catch((err: unknown) => { throw asTargetError(err, scope.modeFile); });
}

async function rollForward(scope: JournalScope, j: Journal): Promise<void> {
  for (const slug of j.rules) {
    const staged = stagedDir(scope, slug, j.suffix);
    if (!(await present(staged))) continue; // swapped in already
    const live = rulesDir(scope, slug);
    const aside = asideDir(scope, slug, j.suffix);
    const movedAside = await present(live);
    if (movedAside) {
      await rm(aside, { recursive: true, force: true });
      await rename(live, aside); // a link is moved as a link, never followed
    }
    try {
      await rename(staged, live);
    } catch (err) {
      if (!gone(err)) throw err;
      // Another turn finished this change meanwhile (this writer stalled past its lease), and what
      // was just moved aside is a later write's folder: it goes back.
      if (movedAside) await rename(aside, live).catch(() => undefined);
      continue;
    }
    // An import without rules files leaves no folder behind (an empty one would say "rules here").
    await rmdir(live).catch(() => undefined);
  }
  if (j.rules.length > 0) await syncDirectory(scope.rooDir);
  const mode = stagedModeFile(scope, j.suffix);
  // Gone when another turn finished the change first.
  if (await rename(mode, scope.modeFile).then(() => true, (err: unknown) => { if (gone(err)) return false; throw err; })) {
    await syncDirectory(dirname(scope.modeFile));
  }
  for (const slug of j.rules) await rm(asideDir(scope, slug, j.suffix), { recursive: true, force: true });
  // The journal goes only while it is still this change's: a later change may have written its own.
  if (await journalIs(scope, j.suffix)) await removeFile(journalPath(scope));
}

/** True while the scope's journal is the one of the change with this suffix. */
async function journalIs(scope: JournalScope, suffix: string): Promise<boolean> {
  try {
    const { text } = await readFileSafely(journalPath(scope), { maxBytes: MAX_JOURNAL_BYTES, links: 'refuse' });
    return parseJournal(text, journalPath(scope)).suffix === suffix;
  } catch {
    return false;
  }
}

const gone = (err: unknown): boolean => err instanceof Error && 'code' in err && err.code === 'ENOENT';

function unreadable(file: string, why: string): ValidationError {
  return new ValidationError(`An interrupted change left ${file}, which cannot be finished: ${why}`, {
    message: `${file}: ${why}`, error_type: 'journal_invalid', file,
    recovery_suggestions: [`Check the mode file and .roo/rules-* folders, then remove ${file}`],
  });
}

function parseJournal(text: string, file: string): Journal {
  let v: unknown;
  try { v = JSON.parse(text); } catch { throw unreadable(file, 'it is not JSON'); }
  const o = v as Partial<Journal> | null;
  if (o === null || typeof o !== 'object' || o.format !== 1) throw unreadable(file, 'it is not a journal of format 1');
  if (typeof o.suffix !== 'string' || !SUFFIX.test(o.suffix)) throw unreadable(file, 'its suffix is not one this server makes');
  if (!Array.isArray(o.rules) || o.rules.length > 1000 || !o.rules.every((s) => typeof s === 'string' && SLUG.test(s))) {
    throw unreadable(file, 'its rules list does not hold slugs');
  }
  if (o.commit !== undefined && (typeof o.commit !== 'string' || !/^[0-9a-f]{16}$/.test(o.commit))) throw unreadable(file, 'its commit is not a write id');
  return { format: 1, suffix: o.suffix, rules: o.rules, ...(o.commit === undefined ? {} : { commit: o.commit }) };
}

/** True when a change was cut short after its commit (its journal is there). */
export const interrupted = (scope: JournalScope): Promise<boolean> => present(journalPath(scope));

/**
 * Finishes a change that a crash cut short after its commit, or undoes one the store did not
 * record; resolves to its slugs and which was done, or null when none was cut short.
 */
export async function finishInterrupted(scope: JournalScope): Promise<{ slugs: string[]; undone: boolean } | null> {
  const file = journalPath(scope);
  let text: string;
  try {
    text = (await readFileSafely(file, { maxBytes: MAX_JOURNAL_BYTES, links: 'refuse' })).text;
  } catch (err) {
    if (err instanceof UnsafeFileError && err.reason === 'missing') return null;
    throw unreadable(file, err instanceof UnsafeFileError ? err.problem : String(err));
  }
  const j = parseJournal(text, file);
  // A journal naming a write the store does not hold (refused, or forgotten with its data): undone.
  const state = j.commit === undefined ? 'no_store' : await commitState(scope.modeFile, j.commit);
  if (state === 'not_committed' || state === 'forgotten') {
    for (const slug of j.rules) await rm(stagedDir(scope, slug, j.suffix), { recursive: true, force: true });
    await rm(stagedModeFile(scope, j.suffix), { force: true });
    await removeFile(file);
    return { slugs: j.rules, undone: true };
  }
  await rollForward(scope, j);
  return { slugs: j.rules, undone: false };
}

/** True when the writer with this pid is gone (this pid: only once the file is old). */
async function deadWriter(path: string, pid: number): Promise<boolean> {
  if (pid !== process.pid) return !processAlive(pid);
  const info = await stat(path).catch(() => null);
  return info !== null && Date.now() - info.ctimeMs > OWN_LEFTOVER_MS;
}

/**
 * Removes temp files and staged folders of ours whose writer died: the mode file's temp files, its
 * lock's pid files (and breakers' asides), staged and set-aside rules folders. Run after
 * finishInterrupted, so nothing a journal still needs is among them; resolves to the names removed
 * (with `look`: the names that would be, removing nothing).
 */
export async function sweepLeftovers(scope: JournalScope, look = false): Promise<string[]> {
  const base = escape(basename(scope.modeFile));
  const tail = '(\\d+)\\.[0-9a-f]+\\.tmp$';
  const inFileDir = new RegExp(`^(?:\\.${base}\\.(?:journal\\.)?|${base}\\.lock\\.(?:breaking\\.)?(?:stale\\.)?)${tail}`);
  const inRooDir = new RegExp(`^\\.rules-[a-zA-Z0-9-]+\\.(?:old\\.)?${tail}`);
  const removed: string[] = [];
  for (const [dir, pattern] of [[dirname(scope.modeFile), inFileDir], [scope.rooDir, inRooDir]] as const) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const m = pattern.exec(name);
      if (m === null) continue;
      const path = join(dir, name);
      if (!(await deadWriter(path, Number(m[1])))) continue;
      if (!look) await rm(path, { recursive: true, force: true });
      removed.push(name);
    }
  }
  return removed;
}
