// The open subscriptions/listen streams of one connection (2026-07-28): opening one (acknowledged
// before anything else), fanning change notifications out to the streams that asked, ending them.
// It writes only through the `notify` it is given; it never answers a request itself.
import { InvalidParamsError, InvalidRequestError } from '../rpc/errors.js';
import { isRecord, type Params, type RequestId } from '../rpc/jsonrpc.js';
import type { RequestContext } from '../rpc/dispatch.js';
import { META, ROO_EVENTS_EXTENSION, requireExtension } from './eras.js';
import { affectedUris, isModeUri } from './mode-uris.js';

/** What one stream agreed to deliver (the acknowledged filter). */
interface Filter {
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
  [ROO_EVENTS_EXTENSION]?: true;
}

interface Stream { id: RequestId; filter: Filter }

/** More than this many URIs in one filter is a mistake, not a need (the catalogue is small). */
const MAX_URIS = 1000;
/**
 * Open streams per connection. Each holds one of the processor's in-flight slots until it ends,
 * so without a cap a client could hold them all and stall its own requests.
 */
export const MAX_STREAMS = 16;

export interface SubscriptionDeps {
  notify(method: string, params: Params): boolean;
  /** Runs `fn` when the connection starts closing; returns its canceller. */
  onClose(fn: () => void): () => void;
  /** Roo IPC events can be offered (a bridge is configured). */
  rooEvents: boolean;
}

export class Subscriptions {
  readonly #d: SubscriptionDeps;
  readonly #open = new Map<string, Stream>();

  constructor(d: SubscriptionDeps) { this.#d = d; }

  get size(): number { return this.#open.size; }

  /**
   * subscriptions/listen: acknowledges the filter we honour, then stays open until the client
   * cancels (nothing more is written for it) or the connection closes (a graceful result is sent).
   * The tool list never changes, so toolsListChanged is never acknowledged.
   */
  listen(params: Params, ctx: RequestContext): Promise<unknown> {
    const wanted = params.notifications;
    if (!isRecord(wanted)) {
      throw new InvalidParamsError('Invalid params: subscriptions/listen needs "notifications"', { message: 'params.notifications: expected a SubscriptionFilter object' });
    }
    if (this.#open.size >= MAX_STREAMS) {
      throw new InvalidRequestError('Invalid Request: too many subscriptions', {
        message: `this connection already has ${MAX_STREAMS} open subscriptions/listen streams; cancel one (notifications/cancelled) or ask for more in one filter`,
      });
    }
    const filter: Filter = {};
    if (wanted.promptsListChanged === true) filter.promptsListChanged = true;
    if (wanted.resourcesListChanged === true) filter.resourcesListChanged = true;
    const uris = wanted.resourceSubscriptions;
    if (uris !== undefined) {
      if (!Array.isArray(uris) || uris.length > MAX_URIS || !uris.every((u): u is string => typeof u === 'string')) {
        throw new InvalidParamsError('Invalid params: resourceSubscriptions', { message: `params.notifications.resourceSubscriptions: expected at most ${MAX_URIS} URI strings` });
      }
      const ours = [...new Set(uris.filter(isModeUri))];
      if (ours.length > 0) filter.resourceSubscriptions = ours;
    }
    if (wanted[ROO_EVENTS_EXTENSION] === true) {
      if (ctx.stateless) requireExtension(ctx.stateless, ROO_EVENTS_EXTENSION, 'Roo events on a listen stream need the client to declare the extension');
      if (this.#d.rooEvents) filter[ROO_EVENTS_EXTENSION] = true;
    }
    const key = JSON.stringify(ctx.id);
    const stream: Stream = { id: ctx.id, filter };
    this.#d.notify('notifications/subscriptions/acknowledged', { _meta: { [META.subscriptionId]: ctx.id }, notifications: filter });
    this.#open.set(key, stream);
    return new Promise((resolve) => {
      const signal = ctx.signal;
      const end = (): void => {
        if (this.#open.get(key) !== stream) return;
        this.#open.delete(key);
        signal.removeEventListener('abort', end);
        stopOnClose();
        resolve({ _meta: { [META.subscriptionId]: ctx.id } });
      };
      const stopOnClose = this.#d.onClose(end);
      signal.addEventListener('abort', end, { once: true });
      if (signal.aborted) end();
    });
  }

  /** The catalogue changed: list_changed to the streams that asked, resources/updated for their URIs. */
  modesChanged(changedSlugs: readonly string[], listChanged: boolean, promptsChanged = false): void {
    const any = listChanged || changedSlugs.length > 0;
    for (const { id, filter } of this.#open.values()) {
      const meta = { [META.subscriptionId]: id };
      if (any && filter.resourcesListChanged) this.#d.notify('notifications/resources/list_changed', { _meta: meta });
      if (any && filter.promptsListChanged) this.#d.notify('notifications/prompts/list_changed', { _meta: meta });
      for (const uri of affectedUris(filter.resourceSubscriptions ?? [], changedSlugs, listChanged, promptsChanged)) {
        this.#d.notify('notifications/resources/updated', { _meta: meta, uri });
      }
    }
  }

  /** A Roo IPC event, to the streams that opted in through our extension. */
  rooEvent(params: Params): void {
    for (const { id, filter } of this.#open.values()) {
      if (filter[ROO_EVENTS_EXTENSION]) this.#d.notify('notifications/roo/event', { ...params, _meta: { [META.subscriptionId]: id } });
    }
  }
}
