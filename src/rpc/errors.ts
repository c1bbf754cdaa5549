// The error-code table and one error class per code. Handlers throw these; only the dispatcher
// turns them into wire objects. Never read a code off an arbitrary thrown value (Node's err.code
// is a string like "ENOENT"): trust `instanceof RpcError` only.

/** Every code the server answers with, in one table. */
export const ERROR_CODES = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  MODE_NOT_FOUND: -32001,
  TASK_NOT_FOUND: -32002,
  SESSION_EXPIRED: -32003,
  VALIDATION_ERROR: -32004,
  TOOL_RESTRICTION_ERROR: -32005,
  FILE_RESTRICTION_ERROR: -32006,
  // Defined by MCP 2026-07-28 (its reserved -32020…-32099 range); only sent in that era.
  HEADER_MISMATCH: -32020,
  MISSING_REQUIRED_CLIENT_CAPABILITY: -32021,
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
} as const;

export type ErrorName = keyof typeof ERROR_CODES;

/** Wire form of an error; `data` is a string or an object with a `message` and precise fields. */
export interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.data = data;
  }
  toWire(): WireError {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

export class ParseError extends RpcError {
  constructor(message = 'Parse error', data?: unknown) { super(ERROR_CODES.PARSE_ERROR, message, data); }
}
export class InvalidRequestError extends RpcError {
  constructor(message = 'Invalid Request', data?: unknown) { super(ERROR_CODES.INVALID_REQUEST, message, data); }
}
export class MethodNotFoundError extends RpcError {
  constructor(method: string, data?: unknown) { super(ERROR_CODES.METHOD_NOT_FOUND, `Method not found: ${quoteName(method)}`, data); }
}
export class InvalidParamsError extends RpcError {
  constructor(message: string, data?: unknown) { super(ERROR_CODES.INVALID_PARAMS, message, data); }
}
export class InternalError extends RpcError {
  constructor(message = 'Internal error', data?: unknown) { super(ERROR_CODES.INTERNAL_ERROR, message, data); }
}
/** Why a session id from an earlier run is unknown, and what to do: said in the message itself. */
export const SESSION_HINT = 'Sessions live in the server process and end with it unless --sessions-dir or ROO_MODES_SESSIONS_DIR is set; create one with create_task';

/**
 * A name the caller gave, as every message shows one: in double quotes (JSON's escaping, so a
 * quote or a line break in it cannot break the message), cut at 200 characters.
 */
export function quoteName(name: string): string {
  return JSON.stringify(name.length > 200 ? `${name.slice(0, 200)}…` : name);
}

/** A list for a one-line message: the first 20 names, then how many more. */
export function shortList(names: readonly string[]): string {
  const shown = names.slice(0, 20).join(', ');
  return names.length > 20 ? `${shown} and ${names.length - 20} more` : shown || '(none)';
}

export class ModeNotFoundError extends RpcError {
  /** `why`: the mode file problem that explains it (a file that defines the slug but failed to load). */
  constructor(slug: string, available: readonly string[], why?: string) {
    // Clients often show only the message, so the hint travels in it too; data keeps the list.
    const because = why === undefined ? '' : ` A mode file defines it, but it did not load: ${why}.`;
    super(ERROR_CODES.MODE_NOT_FOUND, `Mode not found: ${quoteName(slug)}.${because} Available modes: ${shortList(available)}`, {
      message: `No mode has the slug ${quoteName(slug)}.${because} Available: ${available.join(', ')}`,
      slug: slug.length > 200 ? `${slug.slice(0, 200)}…` : slug,
      available_modes: [...available],
      ...(why === undefined ? {} : { load_problem: why }),
    });
  }
}
export class TaskNotFoundError extends RpcError {
  /**
   * `hint`: where sessions live and what to do, when not in this process (the shared store says its
   * own); `reason`: why it is not there, when the store can tell (see tasks/redis-replies.ts).
   */
  constructor(sessionId: string, hint = SESSION_HINT, reason?: string) {
    super(ERROR_CODES.TASK_NOT_FOUND, `Session not found: ${quoteName(sessionId)}. ${hint}`, {
      message: `No session has the id ${quoteName(sessionId)}. ${hint}`,
      session_id: sessionId,
      ...(reason === undefined ? {} : { reason }),
    });
  }
}
export class SessionExpiredError extends RpcError {
  constructor(sessionId: string, timeoutSeconds: number) {
    super(ERROR_CODES.SESSION_EXPIRED, `Session expired: ${quoteName(sessionId)} (idle for over ${timeoutSeconds} s). Start a new task with create_task`, {
      message: `Session ${quoteName(sessionId)} expired after ${timeoutSeconds} s without access; create a new task`,
      session_id: sessionId,
      timeout_seconds: timeoutSeconds,
    });
  }
}
export class ValidationError extends RpcError {
  constructor(message: string, data?: unknown) { super(ERROR_CODES.VALIDATION_ERROR, message, data); }
}
export class ToolRestrictionError extends RpcError {
  constructor(message: string, data?: unknown) { super(ERROR_CODES.TOOL_RESTRICTION_ERROR, message, data); }
}
export class FileRestrictionError extends RpcError {
  constructor(message: string, data?: unknown) { super(ERROR_CODES.FILE_RESTRICTION_ERROR, message, data); }
}
export class MissingRequiredClientCapabilityError extends RpcError {
  /** `required` is a ClientCapabilities object naming only what the request lacked. */
  constructor(message: string, required: Record<string, unknown>) {
    super(ERROR_CODES.MISSING_REQUIRED_CLIENT_CAPABILITY, message, { requiredCapabilities: required });
  }
}
export class UnsupportedProtocolVersionError extends RpcError {
  constructor(requested: string, supported: readonly string[]) {
    super(ERROR_CODES.UNSUPPORTED_PROTOCOL_VERSION, 'Unsupported protocol version', { supported: [...supported], requested });
  }
}
/** Streamable HTTP (2026-07-28): a mirrored header is missing, malformed or disagrees with the body. */
export class HeaderMismatchError extends RpcError {
  constructor(message: string, data?: unknown) { super(ERROR_CODES.HEADER_MISMATCH, `Header mismatch: ${message}`, data); }
}
/**
 * The session store cannot serve this call: its folder fails (the message names the path and the
 * OS error), or the session stayed locked by a live process. Nothing was changed.
 */
export class SessionStoreError extends RpcError {
  // -32603 like any internal failure (the app codes stay -32001…-32006), but with a message that
  // names the store and the OS error instead of the bland default.
  constructor(message: string, data?: unknown) { super(ERROR_CODES.INTERNAL_ERROR, message, data); }
}
