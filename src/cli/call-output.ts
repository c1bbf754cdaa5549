// How `call` marks off the answers of several calls: a heading line per call when printed as text,
// one self-describing JSON line per call with a bare --json. Pure: it formats, it never prints.
import type { JsonObject } from '../client/peer.js';
import type { Step } from './call-script.js';

/** The line that opens a call's answer in a script's text output: its script line and its name. */
export const stepHeading = (step: Step): string => `==> line ${step.line}: ${step.name} <==`;

/** What one call gave: its result (a tool's isError result too), or the JSON-RPC error it got. */
export type StepOutcome = { result: JsonObject } | { error: { code: number; message: string; data?: unknown } };

/**
 * One call as one JSON line: the script line (absent for a single call), the tool or method by
 * name, then its result or error, so each line can be read on its own (`jq`, a log, a test).
 */
export function stepRecord(step: Step, outcome: StepOutcome): string {
  return JSON.stringify({ ...(step.line > 0 ? { line: step.line } : {}), [step.kind]: step.name, ...outcome });
}
