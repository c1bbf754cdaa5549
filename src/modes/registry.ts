// Owns the current mode catalogue: loads it, reloads it when the project root changes or a mode
// file changes on disk, and tells a listener which slugs changed. Never writes any file.
import { watch as fsWatch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Logger } from '../log.js';
import { builtinModes } from './builtin.js';
import { compileMode } from './permissions.js';
import { Catalogue, DEFAULT_MODESETS_DIR, diffCatalogues, loadCatalogue, sourcePaths, type ModeSourcesConfig } from './catalogue.js';
import { logModeProblems } from './problems.js';
import { allCandidates } from './sources.js';
import { AGENT_RULES_FILES } from './rules.js';

const AGENT_FILE_NAMES: ReadonlySet<string> = new Set([...AGENT_RULES_FILES.main, AGENT_RULES_FILES.local]);

export type { ModeSourcesConfig } from './catalogue.js';
/** `promptsChanged`: a file every composed prompt reads (AGENTS.md…) changed, though no mode did. */
/** `peer`: found by a reload another server asked for (reloadForPeer). */
export type ModesChange = { changedSlugs: string[]; listChanged: boolean; promptsChanged?: boolean; peer?: true };

/** Editors save in bursts (truncate, write, rename); one reload per burst is enough. */
const DEBOUNCE_MS = 75;
const ANY = '*';

interface Watched { watcher: FSWatcher; ino: number; names: Set<string> }

/**
 * How it works: every load builds a new immutable Catalogue. Watching uses fs.watch on the
 * directories that hold the mode files (not the files, whose inode changes when an editor saves
 * by rename); when a directory does not exist yet its nearest existing parent is watched for it.
 * Events are filtered by name, debounced, and reloads run one at a time in order, so the last
 * reload always reflects the last change and the configuration in force when it started.
 */
export class ModeRegistry {
  #config: ModeSourcesConfig;
  readonly #log: Logger;
  #current: Catalogue;
  #listeners: ((e: ModesChange) => void)[] = [];
  #watching = false;
  #watchAnnounced = false;
  #closed = false;
  readonly #watched = new Map<string, Watched>();
  #timer: NodeJS.Timeout | null = null;
  #queued = false;
  /** An agent-rules file changed since the last reload started. */
  #agentsTouched = false;
  #chain: Promise<void> = Promise.resolve();

  constructor(config: ModeSourcesConfig, log: Logger) {
    this.#config = { ...config };
    this.#log = log;
    this.#current = new Catalogue({ modes: builtinModes().map((m) => Object.freeze(compileMode(m))) });
  }

  /** The catalogue in force (built-ins only until the first load). */
  get current(): Catalogue { return this.#current; }

  /** Loads every source; never throws for bad files (they become issues). */
  async load(): Promise<Catalogue> {
    await this.#enqueue(false);
    return this.#current;
  }

  /** Reloads after a change this process made itself (e.g. selecting a mode set); listeners hear about it. */
  async reload(): Promise<void> {
    await this.#enqueue(true);
  }

  /**
   * Reloads because another server sharing these files announced a change (the shared store): a
   * watcher here may not see writes made on another host. Listeners hear only of what differs from
   * what this process already had, so a change it saw itself is not announced twice.
   */
  async reloadForPeer(promptsChanged: boolean): Promise<void> {
    if (promptsChanged) this.#agentsTouched = true;
    await this.#enqueue(true, false, true);
  }

  /** The project whose modes are served: configured, the client's root, or the working directory. */
  get projectRoot(): string | null { return this.#config.projectRoot; }

  /** Switches to another project (or none) and reloads; listeners hear about the difference. */
  async setProjectRoot(root: string | null): Promise<void> {
    this.#config = { ...this.#config, projectRoot: root };
    await this.#enqueue(true);
  }

  /**
   * Starts watching the mode files; `onChange` runs after each reload that changed something.
   * The promise (which never rejects) settles once the directory watchers are in place.
   */
  watch(onChange: (e: ModesChange) => void): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#listeners.push(onChange);
    if (!this.#watching) {
      this.#watching = true;
      this.#chain = this.#chain.then(() => this.#syncWatchers()).catch((err: unknown) => this.#log.error('cannot watch the mode files', err));
    }
    return this.#chain;
  }

  close(): void {
    this.#closed = true;
    this.#listeners = [];
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    for (const w of this.#watched.values()) w.watcher.close();
    this.#watched.clear();
  }

  /** Reloads run one after another; a watch-triggered one that has not started yet absorbs later events. */
  #enqueue(notify: boolean, fromWatch = false, peer = false): Promise<void> {
    const run = this.#chain.then(() => {
      if (fromWatch) this.#queued = false;
      return this.#reload(notify, peer);
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }

  async #reload(notify: boolean, peer = false): Promise<void> {
    if (this.#closed) return;
    const promptsChanged = this.#agentsTouched;
    this.#agentsTouched = false;
    const before = this.#current;
    const after = await loadCatalogue(this.#config);
    if (this.#closed) return;
    this.#current = after;
    // Every reload (a file changed) says what is still wrong; a first or repeated load only what changed.
    logModeProblems(after, this.#log, notify ? undefined : before);
    if (this.#watching) {
      await this.#syncWatchers();
      // Once, when the first load under watch is done: from here on every edit is announced.
      if (!this.#watchAnnounced) this.#log.debug(`watching ${this.#watched.size} folders for changes to the mode files`);
      this.#watchAnnounced = true;
    }
    if (!notify) return;
    const change: ModesChange = diffCatalogues(before, after);
    if (promptsChanged) change.promptsChanged = true;
    if (peer) change.peer = true;
    if (change.changedSlugs.length === 0 && !change.listChanged && !promptsChanged) return;
    // Info, as the README's table of levels says: an operator reading the log at the default level
    // sees that the modes in force changed, and which (only when something did).
    this.#log.info(`modes reloaded; changed: ${change.changedSlugs.join(', ') || (change.listChanged ? '(order only)' : '(agent rules only)')}`);
    for (const listener of this.#listeners) {
      try { listener(change); } catch (err) { this.#log.error('a modes-changed listener failed', err); }
    }
  }

  /** The files whose changes matter, as the last load saw the configuration. */
  #targets(): string[] {
    const c = this.#config;
    const out = allCandidates(sourcePaths(c));
    if (c.projectRoot !== null) {
      const sets = resolve(resolve(c.projectRoot), c.modesetsDir ?? DEFAULT_MODESETS_DIR);
      out.push(join(sets, 'active_mode_set'), join(sets, 'roles', ANY));
      if (c.agentRules !== false) for (const name of AGENT_FILE_NAMES) out.push(join(resolve(c.projectRoot), name));
    }
    return out;
  }

  /** Watches the nearest existing directory of each target, filtered to the names that lead to it. */
  async #syncWatchers(): Promise<void> {
    if (this.#closed || !this.#watching) return;
    const wanted = new Map<string, { ino: number; names: Set<string> }>();
    for (const target of this.#targets()) {
      let name = basename(target);
      let dir = dirname(target);
      for (;;) {
        const info = await stat(dir).catch(() => null);
        if (info?.isDirectory()) {
          const entry = wanted.get(dir) ?? { ino: info.ino, names: new Set<string>() };
          entry.names.add(name);
          wanted.set(dir, entry);
          break;
        }
        const parent = dirname(dir);
        if (parent === dir) break;
        name = basename(dir);
        dir = parent;
      }
    }
    if (this.#closed) return;
    for (const [dir, w] of this.#watched) {
      const want = wanted.get(dir);
      if (!want || want.ino !== w.ino) {
        w.watcher.close();
        this.#watched.delete(dir);
      }
    }
    for (const [dir, want] of wanted) {
      const have = this.#watched.get(dir);
      if (have) {
        have.names = want.names;
        continue;
      }
      try {
        const watched: Watched = { ino: want.ino, names: want.names, watcher: null as unknown as FSWatcher };
        watched.watcher = fsWatch(dir, { persistent: false }, (_event, filename) => {
          const name = typeof filename === 'string' ? filename : null;
          if (name !== null && AGENT_FILE_NAMES.has(name) && watched.names.has(name)) this.#agentsTouched = true;
          if (name === null || watched.names.has(ANY) || watched.names.has(name) || name === basename(dir)) this.#schedule();
        });
        watched.watcher.on('error', (err) => {
          this.#log.debug(`stopped watching ${dir}`, err);
          watched.watcher.close();
          if (this.#watched.get(dir) === watched) this.#watched.delete(dir);
          this.#schedule();
        });
        this.#watched.set(dir, watched);
      } catch (err) {
        this.#log.debug(`cannot watch ${dir}`, err);
      }
    }
  }

  #schedule(): void {
    if (this.#closed) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#queued) return;
      this.#queued = true;
      this.#enqueue(true, true).catch((err: unknown) => this.#log.error('reloading the modes failed', err));
    }, DEBOUNCE_MS);
    this.#timer.unref();
  }
}
