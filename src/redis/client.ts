// The Redis client callers hold: commands over one pipelined, self-reconnecting connection, and state
// events. It never retries a command: a retryable error goes back to the caller, who decides.
import { RedisLink } from './link.js';
import type { RedisClientOptions } from './options.js';
import type { RedisArg, RespValue } from './resp.js';

/** What the script and store layers need of a client. */
export interface RedisCommander {
  command(...args: RedisArg[]): Promise<RespValue>;
}

export class RedisClient extends RedisLink implements RedisCommander {
  constructor(options: RedisClientOptions) {
    super(options, {}, async () => undefined);
  }

  /**
   * Sends one command; replies come back in the order commands were sent. While not connected it
   * fails at once with RedisUnavailableError (retryable), past the pending bound with RedisQueueFullError.
   */
  command(...args: RedisArg[]): Promise<RespValue> {
    try {
      return this.live().send(args);
    } catch (err) {
      return Promise.reject(err);
    }
  }
}
