// Builds result values for the YAML readers: mapping entries (safe for keys like "__proto__"),
// key stringification and scalar finishing (tag, anchor, node count). It never reads the text.
import type { Mark, YamlCursor } from './cursor.js';
import type { NodeProps, ScannedScalar } from './scan.js';
import { applyScalarTag, resolvePlain } from './scalars.js';

/** Keys already used in one mapping; scalars compare by value, so 1 and "1" are different keys. */
export type SeenKeys = Set<unknown>;

/** Turns a key value into the property name a JSON-shaped object uses. */
function keyString(key: unknown): string {
  if (key === null || key === undefined) return '';
  if (typeof key === 'object') return JSON.stringify(key);
  return String(key);
}

/** Reserves a key in a mapping, refusing a duplicate (checked before the value is read). */
export function claimKey(c: YamlCursor, seen: SeenKeys, key: unknown, keyAt: number): void {
  if (key !== null && typeof key === 'object') return;
  if (seen.has(key)) c.fail(keyAt, `duplicate mapping key "${keyString(key)}"`);
  seen.add(key);
}

/**
 * Stores one entry. Keys such as "__proto__" or "constructor" become own data properties, never
 * prototype changes.
 */
export function putEntry(target: Record<string, unknown>, key: unknown, value: unknown): void {
  const name = keyString(key);
  if (name in target) {
    Object.defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[name] = value;
  }
}

/** A new mapping object; `putEntry` keeps inherited names such as "__proto__" harmless. */
export function newMapping(): Record<string, unknown> {
  return {};
}

/** Gives a single-pair mapping (from `[key: value]` inside a flow sequence). */
export function pairMapping(c: YamlCursor, key: unknown, value: unknown, keyAt: number): Record<string, unknown> {
  const pair = newMapping();
  putEntry(pair, key, value);
  c.place(pair, keyAt);
  c.countNode();
  return pair;
}

/** Resolves a scanned scalar (core schema for plain ones, tags), records its anchor and counts it. */
export function finishScalar(c: YamlCursor, scalar: ScannedScalar, plain: boolean, props: NodeProps, mark: Mark): unknown {
  const untagged = plain ? resolvePlain(scalar.text) : scalar.text;
  const value = props.tag === undefined ? untagged : applyScalarTag(props.tag, scalar.text, untagged);
  c.countNode(scalar.text.length);
  if (props.anchor !== undefined) c.defineAnchor(props.anchor, value, mark);
  return value;
}

/** The value of an empty node (nothing after `key:` or `-`), with its properties applied. */
export function finishEmpty(c: YamlCursor, props: NodeProps, mark: Mark): unknown {
  const value = props.tag === '!!str' || props.tag === '!' ? '' : null;
  c.countNode();
  if (props.anchor !== undefined) c.defineAnchor(props.anchor, value, mark);
  return value;
}

/** Records the anchor of a finished collection. */
export function finishCollection(c: YamlCursor, value: object, props: NodeProps, mark: Mark): object {
  if (props.anchor !== undefined) c.defineAnchor(props.anchor, value, mark);
  return value;
}
