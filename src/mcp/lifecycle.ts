// The connection's lifecycle state and protocol-revision negotiation. One owner: the processor
// holds one Lifecycle per connection; handlers read the negotiated revision from it.

/** Supported revisions, oldest first; the last is the latest. One table. */
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
  /** Until initialize, lenient mode serves with the latest revision. */
  protocolVersion: ProtocolVersion = LATEST_PROTOCOL_VERSION;
  clientCapabilities: Record<string, unknown> = {};
  clientInfo: { name?: string; version?: string } = {};
  /** notifications/initialized has arrived. */
  initializedNotified = false;

  get batchesAllowed(): boolean {
    return this.state === 'ready' && this.protocolVersion === '2025-03-26';
  }
}
