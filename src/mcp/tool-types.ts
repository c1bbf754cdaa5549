// The contract between the MCP tools layer and each tool family (modes, tasks, mode sets, IPC).
// A family exports a table of named handlers; the registry pairs them with schemas/tools/<name>.json.

/** What a handler may use while it runs. It never sees streams or queues. */
export interface ToolCallContext {
  /** Aborted when the client cancels the request (notifications/cancelled) or the server stops. */
  signal: AbortSignal;
  /** The protocol revision negotiated for this connection. */
  protocolVersion: string;
  /** Reports progress when the request carried a progressToken; a no-op otherwise. */
  progress(progress: number, total?: number, message?: string): void;
}

/** A tool's answer: the human-readable report and the seed's metadata object. */
export interface ToolResult {
  text: string;
  /** Sent as `metadata`, and as `structuredContent` to 2025-06-18+ sessions. Never holds a null. */
  metadata: Record<string, unknown>;
  /**
   * Set by handlers that answer from a cache (the same object again): the registry then keeps
   * the serialised form with the object. Fresh answers are not tracked (a weak entry per answer
   * was garbage-collector work for nothing).
   */
  reused?: true;
}

/**
 * Metadata carries no nulls: a top-level field with nothing to say is left out, because absent is
 * what every schema dialect and every model provider's function calling can express, while
 * nullable types are not portable (test/unit/tool-schemas.test.ts holds the schemas to that).
 */
export function withoutNulls(m: Record<string, unknown>): Record<string, unknown> {
  for (const key in m) {
    if (m[key] === null) return Object.fromEntries(Object.entries(m).filter(([, v]) => v !== null));
  }
  return m;
}

/** Arguments arrive already validated against the tool's input schema. */
export type ToolHandler = (args: Record<string, unknown>, ctx: ToolCallContext) => ToolResult | Promise<ToolResult>;

/** A family of tools as the registry calls them: name → handler. Names must match files in schemas/tools/. */
export type ToolFamily = Readonly<Record<string, ToolHandler>>;

/** A handler as a family writes it: a named function given the family's dependencies, never closing over them. */
export type TableHandler<D> = (deps: D, args: Record<string, unknown>, ctx: ToolCallContext) => ToolResult | Promise<ToolResult>;

/** A family's table: tool name → its handler. */
export type ToolTable<D> = Readonly<Record<string, TableHandler<D>>>;

/** The table with its dependencies, as the registry calls it (a synchronous handler stays synchronous). */
export function bindTools<D>(table: ToolTable<D>, deps: D): ToolFamily {
  const family: Record<string, ToolHandler> = {};
  for (const [name, handler] of Object.entries(table)) family[name] = (args, ctx) => handler(deps, args, ctx);
  return family;
}

/** A family whose code loads on its first call; its tool names are known (from the schema files) before it is. */
export function lazyTools(names: readonly string[], load: () => Promise<ToolFamily>): ToolFamily {
  let loading: Promise<ToolFamily> | undefined;
  const family: Record<string, ToolHandler> = {};
  for (const name of names) {
    family[name] = async (args, ctx) => {
      const handler = (await (loading ??= load()))[name];
      if (!handler) throw new Error(`no handler for ${name}`);
      return handler(args, ctx);
    };
  }
  return family;
}
