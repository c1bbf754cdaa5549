// The 2026-07-28 door: one POST is one request, on a connection of its own; mirrored headers are
// checked (-32020) and a response closed early cancels. It never keeps state between requests.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Core } from '../core.js';
import { ERROR_CODES, HeaderMismatchError, MethodNotFoundError, RpcError } from '../rpc/errors.js';
import { isRecord, type Params, type RequestId } from '../rpc/jsonrpc.js';
import { ERA_METHODS, META, readRequestMeta, servedIn } from '../mcp/eras.js';
import { SSE_HEADERS, sseFrame } from './sse.js';
import { accepts, describe, header, sendJson, sendRpcError } from './wire.js';

/** Which body field each method mirrors into Mcp-Name. One table. */
const NAME_SOURCE: Readonly<Record<string, 'name' | 'uri'>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/** HTTP status of a stateless error answer (the transport page's table); others travel with 200. */
export function statusOf(code: number | undefined): number {
  if (code === ERROR_CODES.METHOD_NOT_FOUND) return 404;
  if (code === ERROR_CODES.HEADER_MISMATCH || code === ERROR_CODES.MISSING_REQUIRED_CLIENT_CAPABILITY || code === ERROR_CODES.UNSUPPORTED_PROTOCOL_VERSION) return 400;
  return 200;
}

/** Decodes the `=?base64?…?=` sentinel form; null when it is malformed. */
function decodeHeaderValue(value: string): string | null {
  const m = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value);
  if (!m) return value.startsWith('=?base64?') ? null : value;
  if (m[1]!.length % 4 !== 0) return null;
  return Buffer.from(m[1]!, 'base64').toString('utf8');
}

/** The error that refuses this request before it runs (headers, era, _meta), or null. */
export function refuse(req: IncomingMessage, method: string, params: Params | undefined): RpcError | null {
  const version = header(req, 'mcp-protocol-version');
  if (version === undefined) return new HeaderMismatchError('the MCP-Protocol-Version header is required', { header: 'MCP-Protocol-Version' });
  const metaVersion = isRecord(params?._meta) ? params._meta[META.protocolVersion] : undefined;
  if (typeof metaVersion === 'string' && metaVersion !== version) {
    return new HeaderMismatchError(`MCP-Protocol-Version header ${JSON.stringify(version)} does not match _meta protocolVersion ${JSON.stringify(metaVersion)}`, { header: 'MCP-Protocol-Version' });
  }
  const mcpMethod = header(req, 'mcp-method');
  if (mcpMethod === undefined) return new HeaderMismatchError(`the Mcp-Method header is required (expected ${JSON.stringify(method)})`, { header: 'Mcp-Method' });
  if (mcpMethod !== method) return new HeaderMismatchError(`Mcp-Method header ${JSON.stringify(mcpMethod)} does not match body method ${JSON.stringify(method)}`, { header: 'Mcp-Method' });
  const source = NAME_SOURCE[method];
  const bodyName = source ? params?.[source] : undefined;
  if (source && typeof bodyName === 'string') {
    const raw = header(req, 'mcp-name');
    if (raw === undefined) return new HeaderMismatchError(`the Mcp-Name header is required for ${method} (expected ${JSON.stringify(bodyName)})`, { header: 'Mcp-Name' });
    const name = decodeHeaderValue(raw);
    if (name === null) return new HeaderMismatchError('Mcp-Name header has a malformed base64 value', { header: 'Mcp-Name' });
    if (name !== bodyName) return new HeaderMismatchError(`Mcp-Name header ${JSON.stringify(name)} does not match body params.${source} ${JSON.stringify(bodyName)}`, { header: 'Mcp-Name' });
  }
  if (!servedIn('stateless', method)) {
    return new MethodNotFoundError(method, ERA_METHODS[method]?.legacy ? `${method} is not part of protocol 2026-07-28 (legacy revisions only)` : undefined);
  }
  const meta = readRequestMeta(method, params);
  return meta instanceof RpcError ? meta : null;
}

/**
 * Runs one admitted request on a connection of its own and streams what it writes to `res`.
 * `made` is called once its answer, or its stream's first event, was handed to the response (the
 * ledger counts it from then on), or when it ends without one.
 */
export function runStateless(core: Core, req: IncomingMessage, res: ServerResponse, id: RequestId, value: unknown, open: Set<() => void>, made: () => void = () => {}): Promise<void> {
  const want = accepts(req);
  const conn = core.open({ incomingCapacity: 2, outgoingCapacity: 64, maxInFlight: 1, shutdownGraceMs: 1000 });
  let streaming = false;
  let answered = false;
  const finish = (): void => { conn.incoming.close(); };
  // At shutdown the input ends: long-lived requests (listen streams) finish gracefully.
  open.add(finish);
  // Closing the response stream is this era's cancellation.
  res.on('close', () => {
    if (!answered) {
      answered = true;
      conn.incoming.tryPush({ kind: 'value', value: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the client closed the response stream' } } });
      finish();
    }
  });
  const routed = (async () => {
    for await (const message of conn.outgoing) {
      const d = describe(message);
      const isAnswer = d.method === undefined && d.answerTo !== undefined;
      if (answered) continue;
      if (!isAnswer) {
        if (!want.sse) continue;
        if (!streaming) { streaming = true; res.writeHead(200, SSE_HEADERS); }
        // A client that stops reading its stream is cut by the unread ledger on the next write (that cancels).
        res.write(sseFrame(d.text));
        made();
        continue;
      }
      answered = true;
      if (streaming) res.end(sseFrame(d.text));
      else sendJson(res, statusOf(d.errorCode), d.text);
      made();
      finish();
    }
  })();
  conn.incoming.tryPush({ kind: 'value', value });
  return conn.done.then(() => { conn.outgoing.close(); return routed; }).finally(made).then(() => {
    open.delete(finish);
    if (!answered) { answered = true; sendRpcError(res, 500, id, ERROR_CODES.INTERNAL_ERROR, 'the request ended without an answer'); }
  });
}
