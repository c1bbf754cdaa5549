// The core both transports share: process-wide services and tool listing, and `open()`, which wires
// one MCP connection (Lifecycle + McpServer + Processor over two queues). It never touches a socket or stdio.
import { BOUNDS } from './bounds.js';
import { AsyncQueue } from './pipeline/queue.js';
import { Processor } from './pipeline/processor.js';
import type { Incoming } from './pipeline/incoming.js';
import type { WireLine } from './pipeline/outbound.js';
import type { RequestContext } from './rpc/dispatch.js';
import { Lifecycle, LATEST_PROTOCOL_VERSION } from './mcp/lifecycle.js';
import { McpServer } from './mcp/server.js';
import { ipcEnabled, type ServerConfig } from './config.js';
import type { LogSink, Logger } from './log.js';
import type { Services } from './services.js';
import type { ModeRegistry } from './modes/registry.js';
import type { ToolListing } from './mcp/tools.js';
import type { SharedStore } from './redis/shared-store.js';

/** One wired connection: the transport feeds `incoming`, drains `outgoing`, and awaits `done`. */
export interface WiredConnection {
  readonly lifecycle: Lifecycle;
  readonly server: McpServer;
  readonly processor: Processor;
  readonly incoming: AsyncQueue<Incoming>;
  /** Serialised messages, each within server.max_message_bytes (the processor sees to it). */
  readonly outgoing: AsyncQueue<WireLine>;
  /** Resolves when the incoming queue was closed and every in-flight request has finished. */
  readonly done: Promise<void>;
}

export interface OpenOptions {
  incomingCapacity: number;
  outgoingCapacity: number;
  maxInFlight: number;
  /** After input ends, how long handlers may still run before their signals abort. */
  shutdownGraceMs?: number;
}

/** The connection a request came in on: every processor of this Core is opened with its connection as owner. */
const ownerOf = (ctx: RequestContext): WiredConnection | undefined => ctx.owner as WiredConnection | undefined;

/**
 * Services are loaded on first use and shared by every connection (HTTP clients share tool-level
 * sessions); their hooks reach the connection a request belongs to through its context
 * (`ctx.owner`, set by the processor of that connection).
 */
export class Core {
  readonly #live = new Set<WiredConnection & { sink: LogSink }>();
  #services: Promise<Services> | null = null;
  #modes: Promise<ModeRegistry> | null = null;
  /** The same registry once loaded, for callers that answer without waiting (the hook endpoint). */
  #modesLoaded: ModeRegistry | null = null;
  #listing: Promise<ToolListing> | null = null;
  #store: Promise<SharedStore> | null = null;

  /**
   * `workingRoot`: the project when none is configured and no client names one, the folder main
   * found by walking up from the working directory (paths/project-root.ts).
   */
  constructor(readonly config: ServerConfig, readonly version: string, readonly sink: LogSink, readonly log: Logger,
    readonly workingRoot: string = process.cwd()) {
    // Each connection has its own view of the sink (its own forward); records reach all of them.
    sink.forward = (record) => { for (const c of this.#live) c.sink.forward?.(record); };
  }

  get connections(): number { return this.#live.size; }

  listing(): Promise<ToolListing> {
    return (this.#listing ??= import('./mcp/tools.js').then(async (m) =>
      new m.ToolListing(m.offeredSpecs(await m.readToolSpecs(), ipcEnabled(this.config)), {
        pageSize: this.config.server.page_size, toolErrors: this.config.server.tool_errors,
        // Only a fallback: McpServer passes its own connection's revision to list().
        protocolVersion: () => LATEST_PROTOCOL_VERSION,
      })));
  }

  /**
   * The shared store (store.url set), created once; null when state stays in this process. It
   * connects in the background: callers get the store at once and its errors say when Redis is down.
   */
  store(): Promise<SharedStore> | null {
    const { url, prefix, command_timeout_ms: commandTimeoutMs } = this.config.store;
    if (url === null) return null;
    return (this.#store ??= import('./redis/shared-store.js').then(({ SharedStore }) => new SharedStore({ url, prefix, commandTimeoutMs }, this.log.child('store'))));
  }

  /**
   * The mode catalogue and its file watch, started once: by the first connection that could be told
   * of a change (see McpServer) or by the services. Resolves once the first load under watch is
   * done; every edit after that reaches every live connection. The other services stay unloaded.
   */
  modes(): Promise<ModeRegistry> {
    if (this.#modes) return this.#modes;
    this.#modes = Promise.all([import('./modes/registry.js'), import('./modesets/legacy.js')]).then(async ([{ ModeRegistry }, { convertLegacyRoles }]) => {
      const p = this.config.paths;
      const registry = new ModeRegistry({
        projectRoot: p.project_root ?? this.workingRoot,
        configDir: p.global_config_dir,
        globalModesFile: p.global_modes_file,
        modesetsDir: this.config.modesets.dir,
        convertDocument: convertLegacyRoles,
        agentRules: this.config.prompts.use_agent_rules,
      }, this.log.child('modes'));
      // With a shared store, other servers' changes arrive as a reload here, and what this process
      // noticed (its own writes, its watchers) is published for them; each announces only its own diff.
      const store = await this.store();
      const fanout = store ? (await import('./modes/change-announcer.js')).joinFanout(store, this.log.child('store'),
        (c) => { void registry.reloadForPeer(c.promptsChanged === true); }, () => { void registry.reloadForPeer(false); }) : null;
      // Watchers first, then the first load: an edit made while loading is then never missed.
      await registry.watch((e) => {
        for (const c of this.#live) c.server.modesChanged(e.changedSlugs, e.listChanged, e.promptsChanged === true);
        // A reload another server asked for may also hold a change made here meanwhile, so its diff is
        // passed on too; servers that have it already find nothing new and stay quiet. Only the
        // prompts flag of such a reload is not passed on (it was the asker's, and would echo forever).
        const out = e.peer ? { changedSlugs: e.changedSlugs, listChanged: e.listChanged } : e;
        if (fanout && (out.changedSlugs.length > 0 || out.listChanged || out.promptsChanged)) fanout.announce(out);
      });
      await registry.load();
      this.#modesLoaded = registry;
      return registry;
    });
    this.#modes.catch((err: unknown) => { this.log.error('the server could not load the modes', err); });
    return this.#modes;
  }

  /** The mode registry when its first load is done (what modes() resolves to), else null. */
  loadedModes(): ModeRegistry | null { return this.#modesLoaded; }

  services(): Promise<Services> {
    if (this.#services) return this.#services;
    this.#services = Promise.all([import('./services.js'), import('./tasks/session-store.js'), this.modes(), this.store()]).then(async ([{ Services }, { openSessionStore }, modes, store]) => {
      const c = this.config.sessions;
      const sessions = await openSessionStore({
        timeoutSeconds: c.timeout, cleanupIntervalSeconds: c.cleanup_interval, lockTimeoutMs: c.persistence.lock_timeout_ms,
        persistenceDir: c.persistence.enabled ? c.persistence.storage_path : null, shared: store, log: this.log.child('sessions'),
        maxSharedSessions: this.config.store.max_task_sessions,
      });
      const s = new Services(this.config, this.log, modes, {
        protocolVersion: (ctx) => ownerOf(ctx)?.lifecycle.protocolVersion ?? LATEST_PROTOCOL_VERSION,
        progress: (ctx, p, t, m) => ownerOf(ctx)?.server.progress(ctx, p, t, m),
        rooEvent: (e) => { for (const c of this.#live) c.server.rooEvent(e, this.config.ipc.push_notifications); },
      }, sessions, store);
      await s.start(await this.listing());
      return s;
    });
    this.#services.catch((err: unknown) => { this.log.error('the server could not start its services', err); });
    return this.#services;
  }

  /** Wires one connection and starts its processor; it leaves the live set when `done` settles. */
  open(o: OpenOptions): WiredConnection {
    const { config } = this;
    // Both queues are bounded in bytes as well as in count, so a few huge messages hold the
    // connection back (backpressure) instead of piling up in memory.
    const maxMessageBytes = config.server.max_message_bytes;
    const queueBytes = Math.max(2 * maxMessageBytes, BOUNDS.queueBytesMin);
    const incoming = new AsyncQueue<Incoming>(o.incomingCapacity, { maxWeight: queueBytes, weigh: (i) => (i.kind === 'value' ? i.bytes ?? 0 : 0) });
    const outgoing = new AsyncQueue<WireLine>(o.outgoingCapacity, { maxWeight: queueBytes, weigh: (l) => l.length });
    const lifecycle = new Lifecycle();
    const sink: LogSink = { level: this.sink.level, write: this.sink.write, forward: null };
    const server = new McpServer({
      version: this.version, services: () => this.services(), modes: () => this.modes(), listing: () => this.listing(),
      preload: ipcEnabled(config), rooEvents: ipcEnabled(config), sink, log: this.log,
    });
    const table = server.methods();
    const conn = { lifecycle, server, incoming, outgoing, sink } as WiredConnection & { sink: LogSink; processor: Processor; done: Promise<void> };
    const processor = new Processor({
      incoming, outgoing, lifecycle, methods: table, strict: config.server.strict, maxInFlight: o.maxInFlight, log: this.log, maxMessageBytes, owner: conn,
      ...(o.shutdownGraceMs === undefined ? {} : { shutdownGraceMs: o.shutdownGraceMs }),
    });
    server.attach({
      lifecycle,
      notify: (method, params) => processor.notify(method, params),
      requestClient: (method, params, timeoutMs) => processor.requestClient(method, params, timeoutMs),
    });
    conn.processor = processor;
    this.#live.add(conn);
    conn.done = processor.run().finally(() => { this.#live.delete(conn); });
    return conn;
  }

  /** Closes the shared services (persistence flushed) once every connection is done. */
  async close(): Promise<void> {
    const s = this.#services ? await this.#services.catch(() => null) : null;
    await s?.close();
    const modes = this.#modes ? await this.#modes.catch(() => null) : null;
    modes?.close();
    const store = this.#store ? await this.#store.catch(() => null) : null;
    store?.close();
  }
}
