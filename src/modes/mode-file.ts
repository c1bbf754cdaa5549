// Reads the text of a Roo mode file (.roomodes, custom_modes.yaml) exactly as Roo Code's loader
// does: clean, parse YAML, JSON fallback on the original text. It never reads files or validates modes.
import { YamlError, parseYaml } from '../yaml/read.js';
import type { YamlDocument } from '../yaml/read.js';

/** Characters Roo replaces before parsing (typographic look-alikes pasted from editors), one table. */
const ROO_REPLACEMENTS: Readonly<Record<string, string>> = {
  '\u00a0': ' ',
  '\u200b': '', '\u200c': '', '\u200d': '',
  '\u2018': "'", '\u2019': "'",
  '\u201c': '"', '\u201d': '"',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
};

const ROO_CLEAN_PATTERN = /[\u00a0\u200b-\u200d\u2018\u2019\u201c\u201d\u2010-\u2015\u2212]/g;

/** Drops one leading byte-order mark, then applies Roo's character replacements. */
export function cleanRooText(text: string): string {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return body.replace(ROO_CLEAN_PATTERN, (ch) => ROO_REPLACEMENTS[ch] ?? ch);
}

/**
 * Parses mode-file text. An empty document gives `{}`. When the YAML is broken and `jsonFallback`
 * is set (Roo does this for .roomodes only), the original, uncleaned text is tried as JSON; if that
 * fails too, the YAML error is thrown because its line and column are what a user can act on.
 */
export function readModeFileText(text: string, options: { jsonFallback: boolean }): YamlDocument {
  let doc: YamlDocument;
  try {
    doc = parseYaml(cleanRooText(text));
  } catch (yamlError) {
    if (!options.jsonFallback || !(yamlError instanceof YamlError)) throw yamlError;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw yamlError;
    }
    // JSON.parse has no depth limit; what comes through the fallback gets the YAML reader's.
    if (nestingDepth(value) > MAX_DEPTH) throw new YamlError(`the document nests deeper than ${MAX_DEPTH} levels`, 1, 1);
    return { value: value ?? {}, positions: new WeakMap() };
  }
  return doc.value === null || doc.value === undefined ? { value: {}, positions: doc.positions } : doc;
}

/** The YAML reader's default depth cap, applied to JSON documents as well. */
const MAX_DEPTH = 1000;

/** Deepest nesting of arrays and objects, measured without recursion (the value may be hostile). */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > MAX_DEPTH) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}
