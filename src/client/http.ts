// The client's Streamable HTTP channel (global fetch): each message is one POST with the session id
// and era headers; JSON and SSE answers come back as lines. It never matches ids (the peer does).
import { EventEmitter } from 'node:events';
import { META, MODERN_VERSIONS } from '../mcp/eras.js';
import { isRecord } from '../rpc/jsonrpc.js';
import type { Channel } from './peer.js';
import type { CloseResult, ExitInfo } from './process.js';

export interface HttpServerParams {
  /** The MCP endpoint, e.g. http://127.0.0.1:3000/mcp. */
  url: string;
  /** Sent as "Authorization: Bearer <token>" when given. */
  token?: string;
}

/** Header-safe text as is; anything else in the base64 sentinel form the 2026-07-28 transport defines. */
function headerValue(text: string): string {
  const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(text) && !(text.startsWith('=?base64?') && text.endsWith('?='));
  return plain ? text : `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

export class HttpChannel implements Channel {
  readonly output = new EventEmitter();
  readonly closed: Promise<ExitInfo>;
  readonly pid = undefined;
  stderrTail = '';
  #sessionId: string | null = null;
  #version: string | null = null;
  #ended = false;
  #markClosed!: (info: ExitInfo) => void;
  /** In-flight POSTs by request id: aborting one closes its stream (the 2026-07-28 cancellation). */
  readonly #inFlight = new Map<string, AbortController>();

  constructor(private readonly params: HttpServerParams) {
    this.closed = new Promise((resolve) => { this.#markClosed = resolve; });
  }

  write(line: string): boolean {
    if (this.#ended) return false;
    const message = JSON.parse(line) as Record<string, unknown>;
    const method = typeof message.method === 'string' ? message.method : undefined;
    const params = isRecord(message.params) ? message.params : {};
    const metaVersion = isRecord(params._meta) ? params._meta[META.protocolVersion] : undefined;
    const modern = typeof metaVersion === 'string' && (MODERN_VERSIONS as readonly string[]).includes(metaVersion);
    if (method === 'notifications/cancelled' && (typeof params.requestId === 'string' || typeof params.requestId === 'number')) {
      const running = this.#inFlight.get(JSON.stringify(params.requestId));
      // Closing the stream is the cancellation in 2026-07-28; legacy sessions also get the notification.
      if (running && this.#sessionId === null) { running.abort(); return true; }
      running?.abort();
    }
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (this.params.token !== undefined) headers.authorization = `Bearer ${this.params.token}`;
    if (this.#sessionId !== null) headers['mcp-session-id'] = this.#sessionId;
    const version = modern ? metaVersion : this.#version;
    if (version) headers['mcp-protocol-version'] = version;
    if (modern && method !== undefined) {
      headers['mcp-method'] = method;
      const name = method === 'resources/read' ? params.uri : params.name;
      if (typeof name === 'string' && ['tools/call', 'prompts/get', 'resources/read'].includes(method)) headers['mcp-name'] = headerValue(name);
    }
    const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : undefined;
    void this.#post(line, headers, id, method);
    return true;
  }

  async #post(body: string, headers: Record<string, string>, id: string | number | undefined, method: string | undefined): Promise<void> {
    const key = JSON.stringify(id);
    const abort = new AbortController();
    if (id !== undefined && method !== undefined) this.#inFlight.set(key, abort);
    try {
      const res = await fetch(this.params.url, { method: 'POST', headers, body, signal: abort.signal });
      const sid = res.headers.get('mcp-session-id');
      if (sid !== null && method === 'initialize') this.#sessionId = sid;
      const type = res.headers.get('content-type') ?? '';
      if (type.includes('text/event-stream') && res.body) {
        await this.#readEvents(res.body);
      } else if (type.includes('application/json') && res.status < 400) {
        const text = await res.text();
        if (method === 'initialize') this.#learnVersion(text);
        this.#emit(text);
      } else if (res.status >= 400 && id !== undefined && method !== undefined) {
        const answer = await res.json().catch(() => null) as { id?: unknown; error?: { message?: unknown } } | null;
        // An error for this request travels as is; a transport refusal (no id) becomes one.
        if (answer?.id !== undefined && answer.id !== null) { this.#emit(JSON.stringify(answer)); return; }
        const why = typeof answer?.error?.message === 'string' ? `: ${answer.error.message}` : '';
        this.#fail(id, `HTTP ${res.status} from ${this.params.url}${why}${res.status === 401 ? ' (set ROO_MODES_HTTP_TOKEN to the server\'s token)' : ''}`);
      }
    } catch (err) {
      if (abort.signal.aborted || id === undefined || method === undefined) return;
      this.#fail(id, `cannot reach ${this.params.url}: ${err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err)}`);
    } finally {
      if (this.#inFlight.get(key) === abort) this.#inFlight.delete(key);
    }
  }

  async #readEvents(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let cut: number;
      while ((cut = buffer.search(/\r?\n\r?\n/)) !== -1) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '');
        const data = block.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
        if (data !== '') this.#emit(data);
      }
    }
  }

  #learnVersion(text: string): void {
    try {
      const answer = JSON.parse(text) as { result?: { protocolVersion?: unknown } };
      if (typeof answer.result?.protocolVersion === 'string') this.#version = answer.result.protocolVersion;
    } catch { /* the peer reports unreadable answers */ }
  }

  #emit(json: string): void {
    if (!this.#ended) this.output.emit('data', Buffer.from(`${json.replace(/\n/g, ' ')}\n`));
  }

  /** An HTTP failure as the JSON-RPC error of the request it carried, so the caller sees it. */
  #fail(id: string | number, message: string): void {
    this.#emit(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message } }));
  }

  /** Ends the legacy session (DELETE) and stops every in-flight request. */
  async close(): Promise<CloseResult> {
    if (!this.#ended) {
      this.#ended = true;
      for (const abort of this.#inFlight.values()) abort.abort();
      if (this.#sessionId !== null) {
        const headers: Record<string, string> = { 'mcp-session-id': this.#sessionId };
        if (this.params.token !== undefined) headers.authorization = `Bearer ${this.params.token}`;
        await fetch(this.params.url, { method: 'DELETE', headers, signal: AbortSignal.timeout(2000) }).then((r) => r.body?.cancel(), () => undefined);
      }
      this.output.emit('end');
      this.#markClosed({ code: 0, signal: null });
    }
    return { code: 0, signal: null, stoppedBy: 'eof' };
  }
}
