// The server's long-lived state, created once by main and passed down: the mode registry, the
// session store, the tool registry and (when configured) the Roo IPC bridge. No stage imports it.
import { homedir } from 'node:os';
import { isAbsolute, relative, sep } from 'node:path';
import { ipcEnabled, type ServerConfig } from './config.js';
import type { Logger } from './log.js';
import type { ModeRegistry } from './modes/registry.js';
import type { CompiledMode, PermissionContext } from './modes/permissions.js';
import type { TaskSessionStore } from './tasks/session-store.js';
import type { SharedStore } from './redis/shared-store.js';
import type { SharedLeases } from './authoring/mode-file-lease.js';
import { ToolRegistry, type ToolListing } from './mcp/tools.js';
import { modeTools } from './mcp/mode-tools.js';
import { EXCHANGE_TOOLS } from './mcp/exchange-tools.js';
import { AUTHORING_TOOLS } from './mcp/authoring-tools.js';
import { VIEW_TOOLS } from './mcp/view-tools.js';
import type { PlannedWrite } from './authoring/authoring.js';
import { FileRestrictionError, ToolRestrictionError } from './rpc/errors.js';
import { modeNotFound } from './modes/problems.js';
import type { ScopeConfig } from './authoring/mode-writes.js';
import { bindTools, lazyTools, type ToolFamily } from './mcp/tool-types.js';
import type { RequestContext } from './rpc/dispatch.js';

export interface ServicesHooks {
  /** The revision of the connection serving `ctx`. */
  protocolVersion(ctx: RequestContext): string;
  progress(ctx: RequestContext, progress: number, total?: number, message?: string): void;
  /** A Roo IPC event arrived (only when the bridge is configured). */
  rooEvent(e: { eventName: string; payload?: unknown[]; taskId?: number }): void;
}

export class Services {
  tools!: ToolRegistry;
  #projectRoot: string | null;
  /** Set at start with a shared store: every mode-file writer of this process takes turns through them. */
  #leases: SharedLeases | null = null;
  /** The last run of #repairStale: runs queue behind it. */
  #repairs: Promise<void> = Promise.resolve();
  readonly #closers: (() => Promise<void> | void)[] = [];

  /**
   * `modes`: the catalogue, loaded and watched already (the core starts it, often before these services).
   * `sessions`: the task-session store chosen for this process (tasks/session-store.ts).
   * `store`: the shared store when one is configured; mode-file turns are then its leases.
   */
  constructor(readonly config: ServerConfig, readonly log: Logger, readonly modes: ModeRegistry, private readonly hooks: ServicesHooks,
    readonly sessions: TaskSessionStore, readonly store: SharedStore | null = null) {
    this.#projectRoot = config.paths.project_root;
  }

  /** The project in force: configured, else from the client's roots, else the one the catalogue reads (found from the working directory). */
  get projectRoot(): string {
    return this.#projectRoot ?? this.modes.projectRoot ?? process.cwd();
  }

  get projectRootConfigured(): boolean { return this.config.paths.project_root !== null; }

  async start(listing: ToolListing): Promise<void> {
    const specs = listing.specs;
    if (this.store) {
      // The first calls find the store connected (a one-shot stdio client asks at once): its first
      // connection is waited for, a bounded time; after that an outage fails calls at once.
      await this.store.firstConnection();
      const [{ RedisLeaseLock }, { stallFromEnv }] = await Promise.all([import('./authoring/mode-file-lease.js'), import('./authoring/test-stall.js')]);
      const lock = new RedisLeaseLock(this.store.client, { replica: this.store.replicaId, prefix: this.store.prefix, leaseMs: this.config.store.lease_ms });
      const stall = stallFromEnv(process.env.ROO_MODES_TEST_STALL, this.log.child('store'));
      this.#leases = { lock, nameOf: (file) => this.#leaseName(file), log: this.log.child('store'), ...(stall ? { stall } : {}) };
    }
    // A change interrupted by a crash is finished (or its leftovers swept) before any tool writes.
    await this.#tidyModeFiles();
    if (this.#leases) {
      // A stale copy a late write left (on this host or another) is repaired now and whenever the files change.
      void this.#repairStale();
      void this.modes.watch(() => { void this.#repairStale(); });
    }
    await this.sessions.init();
    this.#closers.push(() => this.sessions.close());
    // The mode-file tools share one view of the files, the reload path and the session gate.
    const fileDeps = {
      catalogue: () => this.modes.current, scopeConfig: () => this.scopeConfig(), reload: () => this.modes.reload(),
      sessionGate: (id: string, plan: PlannedWrite) => this.#sessionGate(id, plan),
    };
    const permissionContext = (): PermissionContext => ({ projectRoot: this.projectRoot, confineToProjectRoot: this.config.paths.confine_to_project_root });
    const families: ToolFamily[] = [modeTools({
      catalogue: () => this.modes.current,
      sessions: this.sessions,
      permissionContext,
      systemPrompt: (m) => this.systemPrompt(m),
      now: () => Date.now(),
    }), this.#lazyModesetTools(specs), bindTools(EXCHANGE_TOOLS, fileDeps), bindTools(AUTHORING_TOOLS, fileDeps), bindTools(VIEW_TOOLS, {
      catalogue: () => this.modes.current,
      permissionContext,
      place: () => ({ projectRoot: this.projectRoot, homeDir: homedir() }),
    })];
    const ipc = this.config.ipc;
    if (ipcEnabled(this.config)) {
      const { RooBridge } = await import('./ipc/bridge.js');
      const { IPC_TOOLS } = await import('./ipc/tools.js');
      const bridge = new RooBridge({
        socketPath: ipc.socket_path, host: ipc.host, port: ipc.port, queueLimit: ipc.queue_limit,
        queryTimeoutMs: ipc.query_timeout_ms, log: this.log.child('roo-ipc'),
        // One event must fit in a push notification and (twice: metadata and structuredContent) in a poll answer.
        maxEventBytes: Math.floor(this.config.server.max_message_bytes / 4),
        queueBytes: 2 * this.config.server.max_message_bytes,
        onEvent: (e) => this.hooks.rooEvent(e),
      });
      bridge.start();
      this.#closers.push(() => bridge.close());
      families.push(bindTools(IPC_TOOLS, bridge));
    }
    const { compileSchema } = await import('./schema/validate.js');
    this.tools = new ToolRegistry({
      listing, families, compile: compileSchema, toolErrors: this.config.server.tool_errors,
      protocolVersion: (ctx) => this.hooks.protocolVersion(ctx), progress: (ctx, p, t, m) => this.hooks.progress(ctx, p, t, m),
      strictArguments: this.config.server.strict,
    });
  }

  /** The mode-set tools, whose code loads on their first call: most sessions never use them. */
  #lazyModesetTools(specs: ReadonlyMap<string, unknown>): ToolFamily {
    return lazyTools([...specs.keys()].filter((name) => name.startsWith('orchestrator_mode_')), async () => (await import('./modesets/tools.js')).modesetTools({
      projectRoot: () => this.projectRoot,
      configDir: this.config.paths.global_config_dir,
      modesetsDir: this.config.modesets.dir,
      reload: () => this.modes.reload(),
      log: this.log.child('modesets'),
      leases: this.#leases,
    }));
  }

  /**
   * A session may author modes only as its mode may write the mode file (and rules folder): the
   * edit group, a file pattern admitting the file, and the project-root confinement.
   */
  async #sessionGate(sessionId: string, plan: PlannedWrite): Promise<void> {
    const s = await this.sessions.get(sessionId);
    const mode = this.modes.current.get(s.task.mode_slug);
    if (!mode) throw modeNotFound(this.modes.current, s.task.mode_slug);
    const [{ judgeWrite }, { shownPath }] = await Promise.all([import('./authoring/write-gate.js'), import('./authoring/authoring.js')]);
    const ctx = { projectRoot: this.projectRoot, confineToProjectRoot: this.config.paths.confine_to_project_root };
    for (const path of [plan.modeFile, ...(plan.rulesDir ? [plan.rulesDir] : [])]) {
      const d = judgeWrite(mode, shownPath(path, this.projectRoot), ctx);
      if (d.allowed) continue;
      const Err = d.error === 'tool' ? ToolRestrictionError : FileRestrictionError;
      throw new Err(d.reason, { message: d.reason, mode: mode.slug, path });
    }
  }

  /** Finishes a mode-file change a crash cut short and clears dead writers' leftovers; never fatal. */
  async #tidyModeFiles(): Promise<void> {
    const [{ scopePaths }, { tidyModeFile }] = await Promise.all([import('./authoring/mode-writes.js'), import('./authoring/mode-file-lock.js')]);
    for (const scope of ['project', 'global'] as const) {
      try {
        const done = await tidyModeFile(await scopePaths(scope, this.scopeConfig()), this.#leases);
        if (done?.finished) {
          const what = done.finished.slugs.join(', ') || 'mode file only';
          this.log.warn(done.finished.undone ? `undid an interrupted change of ${scope} modes that the store did not record (${what})` : `finished an interrupted change of ${scope} modes (${what})`);
          // The catalogue may have been read before the change was finished.
          await this.modes.reload();
        }
        if (done && done.removed.length > 0) this.log.info(`removed ${done.removed.length} leftover temp file(s) of the ${scope} mode file`);
      } catch (err) {
        this.log.warn(`could not tidy the ${scope} mode file`, err);
      }
    }
  }

  /**
   * With the store: puts the store's record back over any fenced file (the mode files, the mode
   * sets) that holds a stale copy left by a write that landed late. One run at a time; never fatal.
   */
  #repairStale(): Promise<void> {
    const leases = this.#leases;
    if (!leases) return Promise.resolve();
    this.#repairs = this.#repairs.then(async () => {
      const [{ scopePaths }, { repairIfStale }, { folderScope, modeFileScope }, { ModesetPaths }] = await Promise.all([
        import('./authoring/mode-writes.js'), import('./authoring/projection.js'), import('./authoring/mode-file-lock.js'), import('./modesets/paths.js')]);
      const scopes = [
        ...await Promise.all((['project', 'global'] as const).map(async (scope) => modeFileScope(leases, (await scopePaths(scope, this.scopeConfig())).modeFile))),
        folderScope(leases, new ModesetPaths(this.projectRoot, this.config.modesets.dir, this.config.paths.global_config_dir).lock, 'the mode sets'),
      ];
      for (const scope of scopes) await repairIfStale(leases, scope);
    }).catch((err: unknown) => { this.log.debug('could not compare the mode files with the store\'s records', err); });
    return this.#repairs;
  }

  /**
   * The name every replica gives a mode file's lease: its path inside the project (replicas may
   * mount the shared project at different places), else the global file's own path.
   */
  #leaseName(file: string): string {
    const rel = relative(this.projectRoot, file);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? `project:${rel.split(sep).join('/')}` : `path:${file}`;
  }

  /** Where the mode files and rules folders of each scope are, for the tools that write them. */
  scopeConfig(): ScopeConfig {
    const p = this.config.paths;
    return { projectRoot: this.projectRoot, configDir: p.global_config_dir, globalModesFile: p.global_modes_file, homeDir: homedir(), backupsKeep: this.config.backups.keep, leases: this.#leases };
  }

  /** Uses the client's root when none was configured, and reloads the modes from there. */
  async adoptClientRoot(root: string): Promise<void> {
    if (this.projectRootConfigured || root === this.#projectRoot) return;
    this.#projectRoot = root;
    this.log.debug(`project root from the client: ${root}`);
    await this.modes.setProjectRoot(root);
  }

  /** Composed on each call: rules files are read fresh, so edits to them show at once. */
  async systemPrompt(mode: CompiledMode): Promise<string> {
    const { buildSystemPrompt } = await import('./modes/prompt.js'); // loaded when first asked for
    return buildSystemPrompt(mode, this.modes.current.modes, {
      projectRoot: this.projectRoot, homeDir: homedir(), useAgentRules: this.config.prompts.use_agent_rules,
    });
  }

  async close(): Promise<void> {
    for (const close of this.#closers.splice(0).reverse()) {
      try { await close(); } catch (err) { this.log.warn('error while closing', err); }
    }
  }
}
