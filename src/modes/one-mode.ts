// The one mode a single decision needs (the hook's case), found by the catalogue's precedence while
// parsing only the files that can define it. It never guesses: unsure means "load everything".
import type { ModeSourcesConfig } from './catalogue.js';
import { layerFromText, readLayerText, resolveModeFiles } from './catalogue.js';
import { builtinModes } from './builtin.js';
import { compileMode, type CompiledMode } from './permissions.js';

/**
 * Escapes that can make letters, digits or a dash out of other text: \x, \u, \U (YAML's double
 * quotes, and \u in the JSON fallback) and a backslash before a line break, which joins two lines.
 * Every other escape yields a control, space or punctuation character, which no slug holds.
 */
const BUILDING_ESCAPE = /\\[xuU\r\n]/;

/** Roo's clean-up replaces or drops only characters outside ASCII (and a leading byte-order mark). */
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Whether a mode file's text could define a mode with this slug. A parsed string is made of pieces
 * of the cleaned text (Roo's look-alike replacements applied): YAML folds lines with a space or a
 * line break, which no slug holds, so a slug can only come out of text that spells it, or out of an
 * escape that builds characters. A yes is only "maybe": the file is then read in full.
 */
export async function mayDefineSlug(text: string, slug: string): Promise<boolean> {
  if (text.includes(slug) || BUILDING_ESCAPE.test(text)) return true;
  // ASCII text is its own cleaned form; the clean-up module loads only for the rest (measured: a
  // module more on the hook's start costs a few ms on a loaded machine).
  if (!NON_ASCII.test(text)) return false;
  const { cleanRooText } = await import('./roo-clean.js');
  const cleaned = cleanRooText(text);
  return cleaned.includes(slug) || BUILDING_ESCAPE.test(cleaned);
}

/**
 * The mode `slug` exactly as loadCatalogue(config).get(slug) gives it, compiled and frozen, or
 * undefined when no source defines it (the caller then loads the whole catalogue to say why).
 * Layers are taken highest first; a file that cannot define the slug is not parsed (it could only
 * add other modes, or problems the decision never shows), and one that can is read in full, so
 * broken YAML, duplicates and invalid entries count exactly as in the catalogue. A mode set is
 * always read in full: its legacy roles turn keys into slugs.
 */
export async function loadOneMode(config: ModeSourcesConfig, slug: string): Promise<CompiledMode | undefined> {
  const files = await resolveModeFiles(config);
  const texts = await Promise.all(files.layers.map((l) => readLayerText(l.file)));
  for (const [i, layer] of files.layers.entries()) {
    const { text } = texts[i]!;
    if (text === null || (!layer.modeset && !(await mayDefineSlug(text, slug)))) continue;
    const read = await layerFromText(text, layer.file, layer.source, layer.jsonFallback, layer.modeset ? config.convertDocument : undefined, slug);
    const mode = read.modes.find((m) => m.slug === slug);
    if (mode !== undefined) return Object.freeze(compileMode(mode));
  }
  const builtin = builtinModes().find((m) => m.slug === slug);
  return builtin === undefined ? undefined : Object.freeze(compileMode(builtin));
}
