// What the MCP method table needs from its surroundings: the connection it answers on, the feature
// services it routes to, its options, and where a shared legacy session keeps its state. Types only.
import type { Params } from '../rpc/jsonrpc.js';
import type { LogLevel, LogSink, Logger } from '../log.js';
import type { Lifecycle } from './lifecycle.js';
import type { ToolListing, ToolRegistry } from './tools.js';
import type { Catalogue } from '../modes/catalogue.js';
import type { CompiledMode } from '../modes/permissions.js';

/** What the method table needs from the running connection. */
export interface ConnectionPort {
  lifecycle: Lifecycle;
  notify(method: string, params?: Params): boolean;
  requestClient(method: string, params: Params | undefined, timeoutMs: number): Promise<unknown>;
}

/** What the method table uses of the feature services (src/services.ts provides them, loaded on first use). */
export interface FeatureServices {
  readonly tools: Pick<ToolRegistry, 'call'>;
  readonly modes: { readonly current: Catalogue };
  readonly config: { readonly server: { readonly page_size: number } };
  /** A project root was configured: the client's roots are then not asked for. */
  readonly projectRootConfigured: boolean;
  systemPrompt(mode: CompiledMode): Promise<string>;
  /** Serves the modes of the client's root (when none was configured). */
  adoptClientRoot(root: string): Promise<void>;
}

export interface McpServerOptions {
  version: string;
  /** Starts (once) and returns the feature services: loaded on first use, so an idle server stays small. */
  services: () => Promise<FeatureServices>;
  /**
   * Starts (once) the mode catalogue and its file watch, without the other services; settles when
   * edits are announced. Its first load logs the mode files' problems. Called right behind the
   * first answer, and awaited by subscriptions/listen, so whoever could be told of a change is.
   */
  modes: () => Promise<unknown>;
  /** tools/list from the spec files, without the feature modules. */
  listing: () => Promise<ToolListing>;
  /** Load the services right after initialize (the IPC bridge must connect to push events). */
  preload: boolean;
  /** A Roo IPC bridge is configured (its events can be listened to in the stateless era). */
  rooEvents?: boolean;
  sink: LogSink;
  log: Logger;
}

/** A legacy session's state as other replicas may have set it (src/http/shared-sessions.ts). */
export interface SharedState {
  logLevel: LogLevel | null;
  subscriptions: readonly string[];
  initialized: boolean;
}

/** A change of the session's state, kept where every replica reads it. */
export type SharedChange = { logLevel: LogLevel } | { subscribe: string } | { unsubscribe: string } | { initialized: true };

/**
 * Where a legacy session served by several replicas keeps its state: `save` resolves once the
 * change is kept (only then does it take effect here) and throws an RpcError the client may retry.
 */
export interface SharedSession { save(change: SharedChange): Promise<void> }
