// Pub/sub on a connection of its own: (p)subscribe and (p)unsubscribe, messages to one handler, and
// the same subscriptions taken again on every reconnect. It never sends other commands.
import type { RedisConnection } from './socket.js';
import { RedisLink } from './link.js';
import type { RedisClientOptions } from './options.js';
import type { RespValue } from './resp.js';

export interface PubSubMessage {
  channel: string;
  message: string;
  /** The pattern that matched, for psubscribe. */
  pattern?: string;
}

type Kind = 'channel' | 'pattern';
const VERBS = {
  channel: { on: 'SUBSCRIBE', off: 'UNSUBSCRIBE' },
  pattern: { on: 'PSUBSCRIBE', off: 'PUNSUBSCRIBE' },
} as const;

/**
 * Messages published while disconnected are lost (Redis pub/sub keeps nothing); a caller that must
 * not miss any reads its state again on the `connected` event.
 */
export class RedisSubscriber extends RedisLink {
  /** What the server confirmed and what each new connection subscribes again. */
  readonly #wanted: Record<Kind, Set<string>>;

  constructor(options: RedisClientOptions, onMessage: (message: PubSubMessage) => void) {
    const wanted: Record<Kind, Set<string>> = { channel: new Set(), pattern: new Set() };
    super(options, { onPush: (reply) => deliver(reply, onMessage) }, async (conn: RedisConnection) => {
      for (const kind of ['channel', 'pattern'] as const) {
        const names = [...wanted[kind]];
        if (names.length > 0) await conn.send([VERBS[kind].on, ...names], names.length);
      }
    });
    this.#wanted = wanted;
  }

  /**
   * Runs `fn` each time the connection is back after a loss (not on the first connection):
   * messages published meanwhile were missed. Returns the function that stops listening.
   */
  onReconnect(fn: () => void): () => void {
    const seen = { lost: false };
    return this.onState((e) => {
      if (e.state === 'disconnected') seen.lost = true;
      else if (e.state === 'connected' && seen.lost) { seen.lost = false; fn(); }
    });
  }

  /** Resolves once Redis confirmed every channel; fails at once (retryable) while disconnected. */
  subscribe(...channels: string[]): Promise<void> { return this.#on('channel', channels); }
  psubscribe(...patterns: string[]): Promise<void> { return this.#on('pattern', patterns); }
  /** Forgotten at once (a reconnect will not take them again); told to Redis when connected. */
  unsubscribe(...channels: string[]): Promise<void> { return this.#off('channel', channels); }
  punsubscribe(...patterns: string[]): Promise<void> { return this.#off('pattern', patterns); }

  async #on(kind: Kind, names: string[]): Promise<void> {
    if (names.length === 0) return;
    await this.live().send([VERBS[kind].on, ...names], names.length);
    for (const n of names) this.#wanted[kind].add(n);
  }

  async #off(kind: Kind, names: string[]): Promise<void> {
    if (names.length === 0) return;
    for (const n of names) this.#wanted[kind].delete(n);
    if (this.state !== 'connected') return;
    await this.live().send([VERBS[kind].off, ...names], names.length);
  }
}

function deliver(reply: RespValue[], onMessage: (message: PubSubMessage) => void): void {
  const [type, a, b, c] = reply;
  if (type === 'message' && typeof a === 'string' && typeof b === 'string') onMessage({ channel: a, message: b });
  else if (type === 'pmessage' && typeof a === 'string' && typeof b === 'string' && typeof c === 'string') {
    onMessage({ pattern: a, channel: b, message: c });
  }
}
