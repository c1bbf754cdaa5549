// The view's side of the MCP Apps channel: JSON-RPC over postMessage with the host window (requests
// with answers, notifications both ways). It knows no method's meaning and draws nothing.

type Json = Record<string, unknown>;
type Handler = (params: Json) => void;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An error answer of the host, with its JSON-RPC code. */
export class HostError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) { super(message); }
}

/** How long a request may wait for the host's answer (a tool call goes on to the server and back). */
const ANSWER_TIMEOUT_MS = 30_000;

export class HostChannel {
  readonly #host: Window;
  readonly #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; timer: number }>();
  readonly #handlers = new Map<string, Handler[]>();
  readonly #ids = { next: 1 };

  constructor(host: Window) {
    this.#host = host;
    // Only messages from the host window are read: anything else in the page could post too.
    window.addEventListener('message', (event) => { if (event.source === host) this.#receive(event.data); });
  }

  /** Runs `handler` on each notification (or request, answered {} when it names none) of `method`. */
  on(method: string, handler: Handler): void {
    this.#handlers.set(method, [...(this.#handlers.get(method) ?? []), handler]);
  }

  notify(method: string, params: Json = {}): void {
    this.#host.postMessage({ jsonrpc: '2.0', method, params }, '*');
  }

  request(method: string, params: Json = {}): Promise<unknown> {
    const id = this.#ids.next++;
    return new Promise((resolve, reject) => {
      const timer = window.setTimeout(() => {
        this.#pending.delete(id);
        reject(new HostError(-32001, `the host did not answer ${method} within ${ANSWER_TIMEOUT_MS / 1000} s`));
      }, ANSWER_TIMEOUT_MS);
      this.#pending.set(id, { resolve, reject, timer });
      this.#host.postMessage({ jsonrpc: '2.0', id, method, params }, '*');
    });
  }

  #receive(msg: unknown): void {
    if (!isRecord(msg) || msg.jsonrpc !== '2.0') return;
    const params = isRecord(msg.params) ? msg.params : {};
    if (typeof msg.method === 'string') {
      const handlers = this.#handlers.get(msg.method);
      for (const h of handlers ?? []) h(params);
      // A request from the host (ping, ui/resource-teardown) is answered: {} when handled, else unknown.
      if ('id' in msg) {
        const answer = handlers || msg.method === 'ping' ? { result: {} } : { error: { code: -32601, message: `Method not found: ${msg.method}` } };
        this.#host.postMessage({ jsonrpc: '2.0', id: msg.id, ...answer }, '*');
      }
      return;
    }
    if (typeof msg.id !== 'number') return;
    const waiting = this.#pending.get(msg.id);
    if (!waiting) return;
    this.#pending.delete(msg.id);
    window.clearTimeout(waiting.timer);
    if (isRecord(msg.error)) {
      const e = msg.error;
      waiting.reject(new HostError(typeof e.code === 'number' ? e.code : -32603, typeof e.message === 'string' ? e.message : 'the host answered with an error', e.data));
    } else {
      waiting.resolve(msg.result);
    }
  }
}

/** Tells the host the page's height (what it needs to size its frame), whenever that changes. */
export function reportSize(channel: HostChannel): void {
  const last = { width: 0, height: 0, queued: false };
  const measure = (): void => {
    last.queued = false;
    const root = document.documentElement;
    // The content's own height, not the frame's: measured with the root's height let go for a moment.
    const kept = root.style.height;
    root.style.height = 'max-content';
    const height = Math.ceil(root.getBoundingClientRect().height);
    root.style.height = kept;
    const width = Math.ceil(window.innerWidth);
    if (width === last.width && height === last.height) return;
    last.width = width;
    last.height = height;
    channel.notify('ui/notifications/size-changed', { width, height });
  };
  const queue = (): void => { if (!last.queued) { last.queued = true; requestAnimationFrame(measure); } };
  const observer = new ResizeObserver(queue);
  observer.observe(document.documentElement);
  observer.observe(document.body);
  queue();
}
