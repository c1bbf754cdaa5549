// The connection's lifecycle state, its era (legacy initialize or stateless 2026-07-28) and protocol
// negotiation. One owner: each transport connection holds one Lifecycle; handlers read it, never the wire.
import { admit, MODERN_VERSIONS, type Era, type ModernVersion } from './eras.js';
import type { RequestEra } from '../rpc/dispatch.js';
import type { RpcError } from '../rpc/errors.js';
import type { Params } from '../rpc/jsonrpc.js';

/** Revisions negotiated by initialize, oldest first; the last is the latest. One table. */
export const PROTOCOL_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];
export const LATEST_PROTOCOL_VERSION: ProtocolVersion = '2025-11-25';

export type LifecycleState = 'awaiting-initialize' | 'ready' | 'closing';

/** Echo a supported requested revision exactly; anything else gets the latest. */
export function negotiateVersion(requested: unknown): ProtocolVersion {
  return (PROTOCOL_VERSIONS as readonly unknown[]).includes(requested) ? (requested as ProtocolVersion) : LATEST_PROTOCOL_VERSION;
}

/** True when the negotiated revision is at least `rev` (revisions are ISO dates, so strings compare). */
export const atLeast = (version: string, rev: ProtocolVersion): boolean => version >= rev;

export class Lifecycle {
  state: LifecycleState = 'awaiting-initialize';
  /**
   * Null until the first message that decides it: initialize → 'legacy'; an admitted request of
   * the 2026-07-28 era (server/discover, or _meta naming the version) → 'stateless'. Never changes after.
   */
  era: Era | null = null;
  /** Until initialize, lenient mode serves with the latest legacy revision. */
  protocolVersion: ProtocolVersion | ModernVersion = LATEST_PROTOCOL_VERSION;
  clientCapabilities: Record<string, unknown> = {};
  clientInfo: { name?: string; version?: string } = {};
  /** notifications/initialized has arrived. */
  initializedNotified = false;
  readonly #onClose = new Set<() => void>();

  get batchesAllowed(): boolean {
    return this.state === 'ready' && this.protocolVersion === '2025-03-26';
  }

  /**
   * Called by the transport for each request, in arrival order, before dispatch: the request's
   * stateless context, null for a legacy request, or the error that answers it instead.
   */
  admit(method: string, params: Params | undefined): RequestEra | null | RpcError {
    const decided = admit(this.era, this.protocolVersion, method, params);
    if (decided !== null && !(decided instanceof Error) && this.era === null) {
      this.era = 'stateless';
      this.state = 'ready';
      this.protocolVersion = MODERN_VERSIONS[0];
    }
    return decided;
  }

  /** initialize succeeded: the connection is legacy for good. */
  initialized(version: ProtocolVersion): void {
    this.era = 'legacy';
    this.protocolVersion = version;
    this.state = 'ready';
  }

  /** Input ended: long-lived requests (subscriptions) are told to finish. */
  close(): void {
    this.state = 'closing';
    for (const fn of [...this.#onClose]) fn();
    this.#onClose.clear();
  }

  /** Runs `fn` when the connection starts closing; returns the function that cancels it. */
  onClose(fn: () => void): () => void {
    this.#onClose.add(fn);
    return () => { this.#onClose.delete(fn); };
  }
}
