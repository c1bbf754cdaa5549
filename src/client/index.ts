// The public face of the zero-dependency MCP client (stdio and Streamable HTTP): re-exports only, no logic of its own.
// It must never pull in the server pipeline or anything that writes to stdout.

export { connectHttp, connectStdio, McpClient } from './client.js';
export type { HttpServerParams } from './http.js';
export type { ConnectOptions, HttpConnectOptions, HealthCheckOptions, Prompt, Resource, ResourceTemplate, Root, Tool } from './client.js';
export type { JsonObject, NotificationHandler, RequestOptions, ServerRequestHandler } from './peer.js';
export type { CloseOptions, CloseResult, ExitInfo, StdioServerParams, StopStep } from './process.js';
export {
  ClientClosedError,
  McpAbortError,
  McpClientError,
  McpError,
  McpProtocolError,
  McpTimeoutError,
  ServerExitedError,
  SpawnError,
  UnsupportedProtocolVersionError,
} from './errors.js';
export { LineDecoder, encodeMessage } from './framing.js';
export { compileToolPatterns, formatQualifiedName, matchesToolPattern, parseQualifiedName } from '../modes/mcp-names.js';
export type { QualifiedName } from '../modes/mcp-names.js';
