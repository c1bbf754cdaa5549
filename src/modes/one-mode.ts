// One mode without the whole catalogue, for a decision that needs only it (the hook): which mode
// files could define a slug, read without parsing, and the mode as the catalogue would give it.
import { builtinModes } from './builtin.js';
import { cachedLayerFromText, readLayerText, resolveModeFiles, type ModeSourcesConfig } from './catalogue.js';
import { compileMode, type CompiledMode } from './permissions.js';
import { SLUG_PATTERN } from './validate-mode.js';

/**
 * Escapes that can make letters, digits or a dash out of other text: \x, \u, \U (YAML's double
 * quotes, and \u in the JSON fallback) and a backslash before a line break, which joins two lines;
 * every other escape yields a control, space or punctuation character. Roo's clean-up only drops
 * characters outside ASCII or turns one into one ASCII character (never a letter, digit or
 * backslash), so what it may drop is allowed between the two.
 */
const BUILDING_ESCAPE = /\\[^\x00-\x7f]*[xuU\r\n]/;

/**
 * Whether a mode file's text could define a mode with this slug. A parsed string is made of pieces
 * of the cleaned text, and YAML folds lines with a space or a line break, which no slug holds, so a
 * slug comes only from text that spells it once cleaned, or from an escape. The clean-up is allowed
 * for without its table: any characters outside ASCII may vanish between the slug's, and any may
 * stand for a dash. A yes is only "maybe": the file is then read in full.
 */
export function mayDefineSlug(text: string, slug: string): boolean {
  if (text.includes(slug) || BUILDING_ESCAPE.test(text) || !SLUG_PATTERN.test(slug)) return true;
  if (!/[^\x00-\x7f]/.test(text)) return false;
  const loose = [...slug].map((ch) => (ch === '-' ? '(?:-|[^\\x00-\\x7f])' : ch)).join('[^\\x00-\\x7f]*');
  return new RegExp(loose).test(text);
}

/**
 * The mode `slug` exactly as loadCatalogue(config).get(slug) gives it, compiled and frozen, or
 * undefined when no source defines it (the caller then loads the whole catalogue to say why): what
 * one decision needs (the hook). Layers are taken highest first; a file that cannot define the slug
 * is not parsed (it could only add other modes, or problems the decision never shows); one that can
 * is parsed whole, so broken YAML, duplicates and invalid entries count exactly as in the catalogue.
 * A mode set is always read: its legacy roles turn keys into slugs.
 */
export async function loadOneMode(config: ModeSourcesConfig, slug: string): Promise<CompiledMode | undefined> {
  const files = await resolveModeFiles(config);
  const texts = await Promise.all(files.layers.map((l) => readLayerText(l.file)));
  for (const [i, layer] of files.layers.entries()) {
    const { text } = texts[i]!;
    if (text === null || (!layer.modeset && !mayDefineSlug(text, slug))) continue;
    const read = await cachedLayerFromText(config.layerCache, text, layer.file, layer.source, layer.jsonFallback, layer.modeset ? config.convertDocument : undefined, slug);
    const mode = read.modes.find((m) => m.slug === slug);
    if (mode !== undefined) return Object.freeze(compileMode(mode));
  }
  const builtin = builtinModes().find((m) => m.slug === slug);
  return builtin === undefined ? undefined : Object.freeze(compileMode(builtin));
}
