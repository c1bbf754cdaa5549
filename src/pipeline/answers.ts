// The processor's way into the outgoing queue: answers in turn, serialised when their turn comes,
// each within the output limit. It owns the waiting line of answers; it never decides what to answer.
import type { Logger } from '../log.js';
import type { Outgoing, RequestId } from '../rpc/jsonrpc.js';
import type { AsyncQueue } from './queue.js';
import { encodeBatch, encodeResponse, type WireLine } from './outbound.js';

/**
 * How it works: while no answer waits, an answer is serialised and goes straight into the queue
 * if it fits. Otherwise it joins a promise chain and is serialised only when the answers before
 * it are in the queue, so at most one serialised answer waits beside the queue however many
 * handlers finish meanwhile. `waiting` tells the processor to hold back new work; `onCaughtUp`
 * fires when the last waiting answer got in.
 */
export class AnswerLine {
  #tail: Promise<void> = Promise.resolve();
  #waiting = 0;

  constructor(
    private readonly queue: AsyncQueue<WireLine>,
    private readonly maxBytes: number,
    private readonly log: Logger,
    private readonly onCaughtUp: () => void,
  ) {}

  /** Answers waiting for room in the queue. */
  get waiting(): number { return this.#waiting; }

  /**
   * Queues one response, or a batch's answers as one array (a message is never an array). Returns
   * undefined when the answer is in the queue already, else a promise of when it will be.
   */
  send(answer: Outgoing | readonly Outgoing[]): Promise<void> | undefined {
    // The common case allocates nothing beyond the line itself: it is on every answer's path.
    const first = this.#waiting === 0 ? this.#encode(answer) : null;
    if (first !== null && this.queue.tryPush(first)) return undefined;
    this.#waiting++;
    const next = this.#tail
      .then(() => this.queue.push(first ?? this.#encode(answer)))
      .catch(() => { /* output closed: the client is gone */ })
      .finally(() => { if (--this.#waiting === 0) this.onCaughtUp(); });
    this.#tail = next;
    return next;
  }

  #encode(answer: Outgoing | readonly Outgoing[]): WireLine {
    return Array.isArray(answer) ? encodeBatch(answer, this.maxBytes, this.#refused) : encodeResponse(answer as Outgoing, this.maxBytes, this.#refused);
  }

  readonly #refused = (id: RequestId | null, problem: string): void => {
    this.log.warn(`the answer to request ${JSON.stringify(id)} was replaced by an error: ${problem}`);
  };
}
