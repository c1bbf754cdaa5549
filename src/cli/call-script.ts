// Script mode of `call`: reads a JSON-lines file of calls and resolves `$prev.<path>` / `$<n>.<path>`
// references against earlier results. Pure over its inputs; it never starts a server.
import { readFile } from 'node:fs/promises';
import type { JsonObject } from '../client/peer.js';
import { UsageError } from './options.js';

/** One call, from the command line or one script line. */
export interface Step {
  line: number;
  kind: 'tool' | 'method';
  name: string;
  payload: JsonObject;
}

import { isRecord as isObject } from '../rpc/jsonrpc.js';

const REFERENCE = /^\$(prev|[1-9]\d*)((?:\.[^.[\]]+|\[\d+\])*)$/;

export async function readScript(file: string): Promise<Step[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read script ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const steps: Step[] = [];
  const callLines = new Set<number>();
  text.split('\n').forEach((rawLine, index) => {
    const line = index + 1;
    const body = rawLine.trim();
    if (body === '' || body.startsWith('#')) return;
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (err) {
      throw new UsageError(`${file} line ${line}: not valid JSON (${err instanceof Error ? err.message : String(err)})`);
    }
    if (!isObject(value)) throw new UsageError(`${file} line ${line}: expected a JSON object`);
    const { tool, method } = value;
    let step: Step;
    if (typeof tool === 'string' && method === undefined) {
      const args = value.arguments ?? {};
      if (!isObject(args)) throw new UsageError(`${file} line ${line}: "arguments" must be an object`);
      step = { line, kind: 'tool', name: tool, payload: args };
    } else if (typeof method === 'string' && tool === undefined) {
      const params = value.params ?? {};
      if (!isObject(params)) throw new UsageError(`${file} line ${line}: "params" must be an object`);
      step = { line, kind: 'method', name: method, payload: params };
    } else {
      throw new UsageError(`${file} line ${line}: give either "tool" (with "arguments") or "method" (with "params")`);
    }
    forEachReference(step.payload, (ref) => {
      const [, source] = REFERENCE.exec(ref)!;
      if (source === 'prev' ? callLines.size === 0 : !callLines.has(Number(source))) {
        throw new UsageError(`${file} line ${line}: ${ref} refers to ${source === 'prev' ? 'no earlier call' : `line ${source}, which is not an earlier call`}`);
      }
    });
    callLines.add(line);
    steps.push(step);
  });
  if (steps.length === 0) throw new UsageError(`${file} holds no calls`);
  return steps;
}

function forEachReference(value: unknown, visit: (ref: string) => void): void {
  if (typeof value === 'string') {
    if (REFERENCE.test(value)) visit(value);
  } else if (Array.isArray(value)) {
    for (const item of value) forEachReference(item, visit);
  } else if (isObject(value)) {
    for (const item of Object.values(value)) forEachReference(item, visit);
  }
}

/** Replaces every $prev/$n reference in a step's payload with the field it names. */
export function resolveReferences(value: unknown, step: Step, results: Map<number, JsonObject>, prevLine: number): unknown {
  if (typeof value === 'string') {
    const m = REFERENCE.exec(value);
    if (m === null) return value;
    const source = m[1] === 'prev' ? prevLine : Number(m[1]);
    let current: unknown = results.get(source);
    let walked = `$${m[1]}`;
    for (const part of m[2]!.match(/\.[^.[\]]+|\[\d+\]/g) ?? []) {
      const key: string | number = part.startsWith('.') ? part.slice(1) : Number(part.slice(1, -1));
      const next = typeof key === 'number' ? (Array.isArray(current) ? current[key] : undefined) : isObject(current) ? current[key] : undefined;
      if (next === undefined) {
        throw new UsageError(`line ${step.line}: ${value} — ${walked} has no ${typeof key === 'number' ? `item [${key}]` : `field "${key}"`} in the result of line ${source}`);
      }
      current = next;
      walked += part;
    }
    return current;
  }
  if (Array.isArray(value)) return value.map((item) => resolveReferences(item, step, results, prevLine));
  if (isObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveReferences(v, step, results, prevLine)]));
  }
  return value;
}
