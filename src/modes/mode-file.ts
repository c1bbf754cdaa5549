// Reads the text of a Roo mode file (.roomodes, custom_modes.yaml) exactly as Roo Code's loader
// does: clean, parse YAML, JSON fallback on the original text. It never reads files or validates modes.
import { YamlError, parseYaml } from '../yaml/read.js';
import type { YamlDocument } from '../yaml/read.js';
import { depthMessage, tooDeep } from '../rpc/json-bounds.js';

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
    // JSON.parse has no depth limit; what comes through the fallback gets the shared bound (the YAML reader's too).
    if (tooDeep(value)) throw new YamlError(depthMessage('the document'), 1, 1);
    return { value: value ?? {}, positions: new WeakMap() };
  }
  return doc.value === null || doc.value === undefined ? { value: {}, positions: doc.positions } : doc;
}
