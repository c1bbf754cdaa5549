// The MCP method table: lifecycle (initialize, ping, logging, server/discover), and the routes to
// tools, resources and prompts, in both eras. Capabilities are declared here and nowhere else.
import { AsyncLocalStorage } from 'node:async_hooks';
import { fileURLToPath } from 'node:url';
import { InvalidParamsError } from '../rpc/errors.js';
import { isRecord, type Params } from '../rpc/jsonrpc.js';
import type { MethodTable, NotificationHandler, RequestContext, RequestHandler } from '../rpc/dispatch.js';
import { levelRank, LOG_LEVELS, parseLogLevel, type LogLevel } from '../log.js';
import { atLeast, negotiateVersion } from './lifecycle.js';
import { CACHE_HINTS, MODERN_VERSIONS, ROO_EVENTS_EXTENSION, resultDecoration, servedIn } from './eras.js';
import { Subscriptions } from './subscriptions.js';
import { affectedUris, isModeUri } from './mode-uris.js';
import { offersApps, UI_CAPABILITY } from './apps.js';
import type { ModeResources } from './resources.js';
import type { PromptDeps } from './prompts.js';
import type { ConnectionPort, FeatureServices, McpServerOptions, SharedSession, SharedState } from './server-ports.js';

export const SERVER_NAME = 'roo-modes-server';

const INSTRUCTIONS = [
  'This server knows the Roo Code modes of the current project: the built-in modes, global custom modes and the project\'s .roomodes, with what each mode may do.',
  'Use list_modes or get_mode_info to choose a mode; create_task starts a task in a mode and returns a session_id;',
  'validate_tool_use answers whether the task\'s mode may use a tool (and file) before you act; switch_mode moves the task to a mode that can;',
  'complete_task finishes it. Modes are also readable as resources (mode://{slug}, /config, /system_prompt) and as prompts named by slug.',
].join(' ');

/** Wires the method table to a connection; returns the table and hooks for the services. */
export class McpServer {
  readonly #o: McpServerOptions;
  #conn!: ConnectionPort;
  #clientLevel: LogLevel | null = null;
  #resources: ModeResources | null = null;
  /** resources/subscribe of this connection (legacy era); the one owner of the set. */
  readonly #subscribed = new Set<string>();
  /** Set when replicas share this session: state changes are kept there first, and no request goes to the client. */
  #shared: SharedSession | null = null;
  #subscriptions!: Subscriptions;
  #preloaded = false;
  /** The stateless request a log record belongs to, when that request asked for logs (its _meta logLevel). */
  readonly #requestLog = new AsyncLocalStorage<{ level: LogLevel; ctx: RequestContext; open: boolean }>();

  constructor(o: McpServerOptions) { this.#o = o; }

  attach(conn: ConnectionPort): void {
    this.#conn = conn;
    this.#subscriptions = new Subscriptions({
      notify: (method, params) => conn.notify(method, params),
      onClose: (fn) => conn.lifecycle.onClose(fn),
      rooEvents: this.#o.rooEvents ?? false,
    });
    this.#o.sink.forward = (record) => {
      // Legacy: the connection-wide level of logging/setLevel. Stateless: only records made while
      // serving a request that asked for them, and only until its answer (or cancellation).
      const scope = this.#requestLog.getStore();
      const level = conn.lifecycle.era === 'stateless' ? (scope?.open && !scope.ctx.signal.aborted ? scope.level : null) : this.#clientLevel;
      if (level === null || levelRank(record.level) < levelRank(level)) return;
      const data = record.data === undefined ? record.message : { message: record.message, data: record.data };
      conn.notify('notifications/message', { level: record.level, logger: record.logger, data });
    };
  }

  get protocolVersion(): string { return this.#conn.lifecycle.protocolVersion; }

  /** From now on this session's state is kept in `shared` before it takes effect (null: in this process alone). */
  share(shared: SharedSession | null): void { this.#shared = shared; }

  /** Takes the session's state as kept (a copy made on this replica, or a change made on another). */
  restore(state: SharedState): void {
    this.#clientLevel = state.logLevel;
    this.#subscribed.clear();
    for (const uri of state.subscriptions) this.#subscribed.add(uri);
    this.#conn.lifecycle.initializedNotified = state.initialized;
    this.#preload();
  }

  progress(ctx: RequestContext, progress: number, total?: number, message?: string): void {
    if (ctx.progressToken === undefined || ctx.signal.aborted) return;
    const params: Params = { progressToken: ctx.progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined && atLeast(this.protocolVersion, '2025-03-26')) params.message = message;
    this.#conn.notify('notifications/progress', params);
  }

  rooEvent(e: { eventName: string; payload?: unknown[]; taskId?: number }, push: boolean): void {
    const params: Params = { eventName: e.eventName };
    if (e.payload !== undefined) params.payload = e.payload;
    if (e.taskId !== undefined) params.taskId = e.taskId;
    // Stateless: nothing unsolicited; only listen streams that opted in hear of Roo.
    if (this.#conn.lifecycle.era === 'stateless') { this.#subscriptions.rooEvent(params); return; }
    if (push) this.#conn.notify('notifications/roo/event', params);
    if (this.#clientLevel !== null && levelRank('info') >= levelRank(this.#clientLevel)) {
      this.#conn.notify('notifications/message', { level: 'info', logger: 'roo-ipc', data: params });
    }
  }

  /**
   * Announces a changed catalogue: list_changed for resources and prompts, updated for subscriptions.
   * `promptsChanged`: a file every prompt reads (AGENTS.md) changed, so every system prompt did.
   */
  modesChanged(changedSlugs: readonly string[], listChanged: boolean, promptsChanged = false): void {
    if (this.#conn.lifecycle.era === 'stateless') { this.#subscriptions.modesChanged(changedSlugs, listChanged, promptsChanged); return; }
    if (listChanged || changedSlugs.length > 0) {
      this.#conn.notify('notifications/resources/list_changed');
      this.#conn.notify('notifications/prompts/list_changed');
    }
    for (const uri of affectedUris(this.#subscribed, changedSlugs, listChanged, promptsChanged)) this.#conn.notify('notifications/resources/updated', { uri });
  }

  methods(): MethodTable {
    const { services } = this.#o;
    // Once the services are up, handlers run synchronously (no promise hop per request).
    const ready: { s: FeatureServices | null } = { s: null };
    const withServices = (fn: (s: FeatureServices, params: Params, ctx: RequestContext) => unknown): RequestHandler =>
      (params, ctx) => (ready.s ? fn(ready.s, params, ctx) : services().then((s) => { ready.s = s; return fn(s, params, ctx); }));
    const resources = async (): Promise<ModeResources> => {
      const [s, { ModeResources }] = await Promise.all([services(), import('./resources.js')]);
      this.#resources ??= new ModeResources({
        catalogue: () => s.modes.current, systemPrompt: (m) => s.systemPrompt(m),
        pageSize: s.config.server.page_size, protocolVersion: () => this.protocolVersion,
        stateless: () => this.#conn.lifecycle.era === 'stateless',
      });
      return this.#resources;
    };
    const promptDeps = (s: FeatureServices): PromptDeps => ({
      catalogue: () => s.modes.current, systemPrompt: (m) => s.systemPrompt(m),
      pageSize: s.config.server.page_size, protocolVersion: () => this.protocolVersion,
    });
    const prompts = (): Promise<typeof import('./prompts.js')> => import('./prompts.js');
    const requests = new Map<string, RequestHandler>([
      ['initialize', (params) => this.#initialize(params)],
      ['server/discover', () => this.#discover()],
      // Acknowledged only once the mode files are watched, so no edit after the ack goes unannounced.
      ['subscriptions/listen', async (p, ctx) => { await this.#o.modes().catch(() => undefined); return this.#subscriptions.listen(p, ctx); }],
      ['ping', () => ({})],
      ['logging/setLevel', (params) => this.#setLevel(params)],
      ['tools/list', async (p, ctx) => (await this.#o.listing()).list(p, this.protocolVersion, this.offersApps(ctx))],
      ['tools/call', withServices((s, p, ctx) => s.tools.call(p, ctx, this.offersApps(ctx)))],
      ['resources/list', async (p, ctx) => (await resources()).list(p, this.offersApps(ctx))],
      ['resources/templates/list', async (p) => (await resources()).templates(p)],
      ['resources/read', async (p, ctx) => (await resources()).read(p, this.offersApps(ctx))],
      ['resources/subscribe', async (p) => this.#subscribe((await resources()).subscription(p))],
      ['resources/unsubscribe', (p) => this.#unsubscribe(p)],
      ['prompts/list', withServices(async (s, p) => (await prompts()).listPrompts(promptDeps(s), p))],
      ['prompts/get', withServices(async (s, p) => (await prompts()).getPrompt(promptDeps(s), p))],
      ['completion/complete', withServices((s, p) => complete(s, p))],
    ]);
    const notifications = new Map<string, NotificationHandler>([
      ['notifications/initialized', () => {
        this.#conn.lifecycle.initializedNotified = true;
        // A notification has no answer to fail: a replica that loads the record later sees it as not yet sent.
        this.#shared?.save({ initialized: true }).catch((err: unknown) => this.#o.log.warn(`could not keep notifications/initialized: ${(err as Error).message}`));
        void this.#askRoots();
      }],
      ['notifications/roots/list_changed', () => { void this.#askRoots(); }],
    ]);
    return {
      requests: new Map([...requests].map(([method, handler]) => [method, this.#inEra(method, handler)])),
      // A legacy-only notification on a stateless connection is ignored, as unknown ones are.
      notifications: new Map([...notifications].map(([method, handler]) => [method, (p: Params) => {
        if (this.#conn.lifecycle.era !== 'stateless' || servedIn('stateless', method)) handler(p);
      }])),
    };
  }

  /** Serves a stateless request: its logs (when asked for) and the decorated result. Legacy requests pass through. */
  #inEra(method: string, handler: RequestHandler): RequestHandler {
    const decorate = resultDecoration(method, { name: SERVER_NAME, version: this.#o.version });
    return (params, ctx) => {
      const req = ctx.stateless;
      if (req === null) return handler(params, ctx);
      this.#preload();
      const scope = req.logLevel === undefined ? null : { level: req.logLevel, ctx, open: true };
      const close = (result: unknown): unknown => { if (scope) scope.open = false; return decorate(result); };
      const fail = (err: unknown): never => { if (scope) scope.open = false; throw err; };
      let out: unknown;
      try {
        out = scope ? this.#requestLog.run(scope, () => handler(params, ctx)) : handler(params, ctx);
      } catch (err) {
        return fail(err);
      }
      return out instanceof Promise ? out.then(close, fail) : close(out);
    };
  }

  /**
   * The client offers MCP Apps (the view): said once by initialize in the legacy era, by each
   * request's own capabilities in 2026-07-28.
   */
  offersApps(ctx: RequestContext): boolean {
    return offersApps(ctx.stateless ? ctx.stateless.clientCapabilities : this.#conn.lifecycle.clientCapabilities);
  }

  /**
   * The capabilities of both eras; the stateless era has no subscribe (listen replaces it) and no
   * completions gate. `apps`: declare MCP Apps (legacy: only to a client that offered it, so others
   * get the answer they always had; server/discover describes the server to anyone, so always).
   */
  #capabilities(version: string, apps: boolean): Record<string, unknown> {
    const stateless = version >= MODERN_VERSIONS[0];
    const capabilities: Record<string, unknown> = {
      tools: {},
      resources: stateless ? { listChanged: true } : { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
    };
    if (atLeast(version, '2025-03-26')) capabilities.completions = {};
    const extensions = { ...(stateless && this.#o.rooEvents ? { [ROO_EVENTS_EXTENSION]: {} } : {}), ...(apps ? UI_CAPABILITY : {}) };
    if (Object.keys(extensions).length > 0) capabilities.extensions = extensions;
    return capabilities;
  }

  /**
   * Right behind the first answer, reads the mode files (their problems are logged at start, not at
   * the first tool call), or all the services when the IPC bridge must connect to push events.
   */
  #preload(): void {
    if (this.#preloaded) return;
    this.#preloaded = true;
    // The answer is queued before this runs, so the load never delays it.
    setImmediate(() => { (this.#o.preload ? this.#o.services() : this.#o.modes()).catch(() => { /* logged by the loader */ }); });
  }

  #discover(): unknown {
    return { supportedVersions: [...MODERN_VERSIONS], capabilities: this.#capabilities(MODERN_VERSIONS[0], true), instructions: INSTRUCTIONS, ...CACHE_HINTS['server/discover'] };
  }

  #initialize(params: Params): unknown {
    const lc = this.#conn.lifecycle;
    if (params.protocolVersion !== undefined && typeof params.protocolVersion !== 'string') {
      throw new InvalidParamsError('initialize: "protocolVersion" must be a string');
    }
    const version = negotiateVersion(params.protocolVersion);
    lc.clientCapabilities = isRecord(params.capabilities) ? params.capabilities : {};
    if (isRecord(params.clientInfo)) {
      const { name, version } = params.clientInfo;
      lc.clientInfo = { ...(typeof name === 'string' ? { name } : {}), ...(typeof version === 'string' ? { version } : {}) };
    }
    lc.initialized(version);
    this.#preload();
    this.#o.log.debug(`initialized with ${lc.clientInfo.name ?? 'an unnamed client'} on protocol ${lc.protocolVersion}`);
    return {
      protocolVersion: lc.protocolVersion,
      capabilities: this.#capabilities(lc.protocolVersion, offersApps(lc.clientCapabilities)),
      serverInfo: { name: SERVER_NAME, version: this.#o.version },
      instructions: INSTRUCTIONS,
    };
  }

  #setLevel(params: Params): unknown {
    const level = typeof params.level === 'string' ? parseLogLevel(params.level) : undefined;
    if (!level) {
      throw new InvalidParamsError('logging/setLevel: unknown level', {
        message: `params.level: expected one of ${LOG_LEVELS.join(', ')}`,
      });
    }
    if (!this.#shared) { this.#clientLevel = level; return {}; }
    return this.#shared.save({ logLevel: level }).then(() => { this.#clientLevel = level; return {}; });
  }

  async #subscribe(uri: string): Promise<unknown> {
    if (!this.#subscribed.has(uri)) await this.#shared?.save({ subscribe: uri });
    this.#subscribed.add(uri);
    return {};
  }

  async #unsubscribe(params: Params): Promise<unknown> {
    const uri = params.uri;
    // Only a subscribed URI (one of our grammar) is ever kept, so nothing else needs a round trip.
    if (typeof uri !== 'string' || !this.#subscribed.has(uri) || !isModeUri(uri)) return {};
    await this.#shared?.save({ unsubscribe: uri });
    this.#subscribed.delete(uri);
    return {};
  }

  async #askRoots(): Promise<void> {
    const lc = this.#conn.lifecycle;
    // Never in the stateless era: it has no server→client requests.
    if (lc.era !== 'legacy' || !isRecord(lc.clientCapabilities.roots)) return;
    // The answer could land on another replica: replicas that share sessions use the configured root.
    if (this.#shared) return;
    const s = await this.#o.services();
    if (s.projectRootConfigured) return;
    try {
      const result = await this.#conn.requestClient('roots/list', undefined, 5000);
      const roots = isRecord(result) && Array.isArray(result.roots) ? result.roots : [];
      const first = roots.find((r): r is { uri: string } => isRecord(r) && typeof r.uri === 'string' && r.uri.startsWith('file://'));
      if (first) await s.adoptClientRoot(fileURLToPath(first.uri));
    } catch (err) {
      // A client that went away (stdin closed) did not fail to answer: nothing to warn about.
      if (lc.state === 'closing') { this.#o.log.debug('roots/list unanswered: the client went away'); return; }
      this.#o.log.warn('could not use the client\'s roots', err instanceof Error ? err.message : err);
    }
  }
}

/** completion/complete: mode slugs for the resource templates' {slug}; nothing else to offer. */
function complete(s: FeatureServices, params: Params): unknown {
  const ref = isRecord(params.ref) ? params.ref : {};
  const arg = isRecord(params.argument) ? params.argument : {};
  const prefix = typeof arg.value === 'string' ? arg.value : '';
  let values: string[] = [];
  if (ref.type === 'ref/resource' && arg.name === 'slug') {
    values = s.modes.current.slugs().filter((slug) => slug.startsWith(prefix));
  }
  return { completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 } };
}
