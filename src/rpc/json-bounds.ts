// The one depth check for values that arrive from outside (client lines, IPC events, mode files,
// config, session files). It never parses text and never logs; the bound itself is in src/bounds.ts.
import { BOUNDS } from '../bounds.js';

/**
 * Deepest nesting of arrays and objects accepted from outside, one value for every source. It
 * matches the YAML reader's default cap, far above any real document, and far below what the
 * recursive code downstream (JSON.stringify, the schema validator, the YAML writer) can take.
 */
export const MAX_JSON_DEPTH: number = BOUNDS.jsonDepth;

/**
 * Deepest nesting of arrays and objects in `value` (a scalar is 0, `[]` is 1), measured without
 * recursion because the value may be hostile. Stops as soon as the depth passes `stopAbove` (it
 * then returns a number greater than `stopAbove`, not necessarily the true depth), so a huge but
 * shallow value costs one walk and a deep one costs no more than reaching the limit.
 */
export function nestingDepth(value: unknown, stopAbove: number = MAX_JSON_DEPTH): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  // Parallel stacks of values and their depths: no tuple allocated per visited node.
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth > deepest) {
      deepest = depth;
      if (deepest > stopAbove) return deepest;
    }
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) { values.push(child); depths.push(depth + 1); }
    }
  }
  return deepest;
}

/** True when `value` nests deeper than `max` levels. */
export function tooDeep(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  return nestingDepth(value, max) > max;
}

/** The sentence every refusal uses, so users see one wording whatever the source. */
export function depthMessage(what: string, max: number = MAX_JSON_DEPTH): string {
  return `${what} nests deeper than ${max} levels`;
}
