// Sorts a config file's unknown keys: ones that look like a typo of a known key are errors (with
// the suggestion); others (the seed's server.name, logging.format…) are dropped with a warning.
// Reads the key tree from the config schema it is given; never reads files or prints anything.
import { isRecord } from './rpc/jsonrpc.js';

type Json = Record<string, unknown>;

export interface KeySorting {
  /** The file's value without the unknown keys: what the schema then validates. */
  known: Json;
  /** Dotted paths of the keys dropped, in file order. */
  ignored: string[];
  /** The first unknown key that looks like a misspelt known one, with that key. */
  typo: { key: string; suggestion: string } | null;
}

/** Lower case without separators: `maxMessageBytes`, `max-message-bytes` and `max_message_bytes` meet. */
const squash = (key: string): string => key.toLowerCase().replace(/[_\-\s]/g, '');

/** Optimal string alignment distance (a swap of neighbours counts once), capped for speed. */
function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 4;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known key an unknown one most likely meant, or null. A typo is a different spelling of the
 * same name (case, separators) or at most two edits away while staying closer than half the name:
 * `strct` → `strict`, but `name` is not `file` and `format` is not `port`.
 */
export function likelyMeant(unknown: string, known: readonly string[]): string | null {
  const u = squash(unknown);
  let best: { key: string; d: number } | null = null;
  for (const key of known) {
    const k = squash(key);
    const d = u === k ? 0 : distance(u, k);
    if (d <= 2 && d * 2 < Math.min(u.length, k.length) && (best === null || d < best.d)) best = { key, d };
  }
  return best?.key ?? null;
}

/** Walks the value along the schema's `properties`; `$schema` is always allowed at the top. */
export function sortConfigKeys(value: Json, schema: Json): KeySorting {
  const out: KeySorting = { known: {}, ignored: [], typo: null };
  const walk = (node: Json, spec: Json, prefix: string): Json => {
    const props = isRecord(spec.properties) ? spec.properties : {};
    const names = Object.keys(props);
    const kept: Json = {};
    for (const [key, v] of Object.entries(node)) {
      const path = `${prefix}${key}`;
      const sub = props[key];
      if (isRecord(sub)) {
        kept[key] = isRecord(v) && isRecord(sub.properties) ? walk(v, sub, `${path}.`) : v;
        continue;
      }
      const meant = likelyMeant(key, names);
      if (meant !== null) out.typo ??= { key: path, suggestion: `${prefix}${meant}` };
      else out.ignored.push(path);
    }
    return kept;
  };
  out.known = walk(value, schema, '');
  return out;
}
