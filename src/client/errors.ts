// The client's error classes: one per way a call can fail, so callers branch on `instanceof`.
// It never builds messages from stdout and never reads a code off an arbitrary thrown value.

/** Base of every error the client throws; lets callers catch client failures as one family. */
export class McpClientError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The server answered with a JSON-RPC error object; `code` is the wire code (-32001, -32602, …). */
export class McpError extends McpClientError {
  readonly code: number;
  readonly data?: unknown;
  /** The method of the request that failed. */
  readonly method: string;
  constructor(code: number, message: string, data: unknown, method: string) {
    super(message);
    this.code = code;
    if (data !== undefined) this.data = data;
    this.method = method;
  }
}

/** No answer arrived in time; notifications/cancelled has already been sent for the request. */
export class McpTimeoutError extends McpClientError {
  readonly method: string;
  readonly timeoutMs: number;
  constructor(method: string, timeoutMs: number) {
    super(`${method} timed out after ${timeoutMs} ms`);
    this.method = method;
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's AbortSignal fired; notifications/cancelled has been sent when a request was out. */
export class McpAbortError extends McpClientError {
  readonly method: string;
  constructor(method: string, reason: unknown) {
    super(`${method} was aborted${reason instanceof Error ? `: ${reason.message}` : ''}`, { cause: reason });
    this.method = method;
  }
}

/** The server process ended (or closed its output) while the client still expected answers. */
export class ServerExitedError extends McpClientError {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The last lines the server wrote to stderr, which usually say why it stopped. */
  readonly stderrTail: string;
  constructor(exitCode: number | null, signal: NodeJS.Signals | null, stderrTail: string, context: string) {
    const how = signal !== null ? `was killed by ${signal}` : `exited with code ${exitCode ?? 'unknown'}`;
    const tail = stderrTail.trim() === '' ? '' : `\n--- server stderr (tail) ---\n${stderrTail.trimEnd()}`;
    super(`MCP server ${how} ${context}${tail}`);
    this.exitCode = exitCode;
    this.signal = signal;
    this.stderrTail = stderrTail;
  }
}

/** The server process could not be started at all (missing command, not executable, bad cwd). */
export class SpawnError extends McpClientError {
  readonly command: string;
  /** Node's error code string such as ENOENT or EACCES, when there is one. */
  readonly errno: string | undefined;
  constructor(command: string, cause: unknown) {
    const errno = cause instanceof Error && 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined;
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(`cannot start MCP server "${command}": ${detail}`, { cause });
    this.command = command;
    this.errno = errno;
  }
}

/** The server chose a protocol revision this client does not speak; the connection was closed. */
export class UnsupportedProtocolVersionError extends McpClientError {
  readonly offered: string;
  readonly answered: unknown;
  readonly supported: readonly string[];
  constructor(offered: string, answered: unknown, supported: readonly string[]) {
    super(
      `MCP server answered protocol version ${JSON.stringify(answered)} to our ${offered}; ` +
        `this client supports ${supported.join(', ')}`,
    );
    this.offered = offered;
    this.answered = answered;
    this.supported = supported;
  }
}

/** The server sent something that breaks the protocol (a malformed result, a looping cursor). */
export class McpProtocolError extends McpClientError {}

/** The client was closed by its owner while a request was still waiting. */
export class ClientClosedError extends McpClientError {
  constructor(method: string) {
    super(`${method} was abandoned because the client was closed`);
  }
}
