// The HTTP door's connections: the cap below the descriptor limit (the oldest idle connection makes
// room, else a fast 503), the idle timer, and one request at a time per connection, each started
// only once the answers before it were taken (backpressure). It never reads bodies or answers requests.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

interface Conn {
  /** Requests of this connection received and not yet answered. */
  active: number;
  /** A request of this connection runs, or its answer is not yet taken: the next one waits. */
  busy: boolean;
  /** The requests waiting for their turn, oldest first. */
  waiting: (() => void)[];
}

/** The soft limit on open files of this process, or null where it cannot be read (not Linux). */
export function descriptorLimit(): number | null {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch { return null; }
}

/** Calls `then` once `socket` holds no unread answer bytes beyond its buffer's mark (or is gone); at once when it does not. */
function whenTaken(socket: Socket, then: () => void): void {
  if (socket.destroyed || !socket.writableNeedDrain) { then(); return; }
  const done = (): void => { socket.off('drain', done); socket.off('close', done); then(); };
  socket.on('drain', done);
  socket.on('close', done);
}

export class ConnectionGate {
  /** Open connections in the order they came (the first idle one is the oldest). */
  readonly #conns = new Map<Socket, Conn>();
  readonly #refused = new WeakSet<Socket>();
  readonly #refusals = { loggedAt: 0, unlogged: 0 };

  constructor(
    private readonly o: { maxConnections: number; retryAfterS: number },
    private readonly log: { warn(message: string): void },
  ) {}

  get open(): number { return this.#conns.size; }

  /** A new connection: admitted (the oldest idle one closed to make room if needed) or refused with 503. */
  admit(socket: Socket): void {
    if (this.#conns.size >= this.o.maxConnections && !this.#evictIdle()) {
      this.#refused.add(socket);
      this.#logRefusal(socket);
      const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `too many connections (${this.o.maxConnections}); retry later` } });
      socket.end(`HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRetry-After: ${this.o.retryAfterS}\r\nConnection: close\r\n\r\n${body}`);
      socket.on('error', () => { /* the client may reset first */ });
      // Its request is read and dropped until the client closes; one that lingers is cut.
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    this.#conns.set(socket, { active: 0, busy: false, waiting: [] });
    socket.once('close', () => this.#conns.delete(socket));
    // Until its first request arrives, a connection that sends nothing is closed by Node's socket
    // timer (server.timeout); between requests keepAliveTimeout does the same.
  }

  refused(socket: Socket): boolean { return this.#refused.has(socket); }

  /** One line per second at most, so a flood of connections cannot flood the log as well. */
  #logRefusal(socket: Socket): void {
    const r = this.#refusals;
    r.unlogged++;
    const now = Date.now();
    if (now - r.loggedAt < 1000) return;
    this.log.warn(`HTTP: ${this.#conns.size} connections open (the cap, http.max_connections or the open-file limit); refusing ${r.unlogged === 1 ? 'one' : `${r.unlogged} since the last line, the latest`} from ${socket.remoteAddress ?? '?'} with 503`);
    r.loggedAt = now;
    r.unlogged = 0;
  }

  /**
   * Runs `run` once this request may run: the connection's earlier requests are answered and their
   * answers taken by the client. Until then its body stays unread, so Node stops reading the socket.
   * A connection with nothing before it (the common case) runs it at once, with no promise or
   * microtask in between; a waiting one runs from a microtask after the earlier answer was taken.
   */
  turn(req: IncomingMessage, res: ServerResponse, run: () => void): void {
    const socket = req.socket;
    const c = this.#conns.get(socket);
    if (!c) { run(); return; }
    c.active++;
    // A request being served is bounded by the header, body and answer rules, not the idle timer.
    socket.setTimeout(0);
    res.once('close', () => { c.active--; whenTaken(socket, () => next(c)); });
    if (c.busy) { c.waiting.push(run); return; }
    c.busy = true;
    run();
  }

  /** Closes every connection with no request in flight (shutdown). */
  closeIdle(): void {
    for (const [socket, c] of this.#conns) if (c.active === 0) socket.destroy();
  }

  #evictIdle(): boolean {
    for (const [socket, c] of this.#conns) {
      if (c.active === 0) {
        this.#conns.delete(socket);
        socket.destroy();
        return true;
      }
    }
    return false;
  }
}

/** Hands the connection to its next waiting request, or marks it free. */
function next(c: Conn): void {
  const run = c.waiting.shift();
  if (run === undefined) { c.busy = false; return; }
  queueMicrotask(run);
}
