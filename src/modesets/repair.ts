// Computes the repaired text of a mode set: only fixes that cannot change what a valid mode means
// (plain characters for invisible ones, dropping unknown or repeated groups, a name from the slug,
// a valid slug). Pure text in, text out; it never writes files and never guesses at content.
import { cleanRooText, readModeFileText } from '../modes/mode-file.js';
import { isGroupName } from '../modes/tool-groups.js';
import { SLUG_PATTERN } from '../modes/validate-mode.js';
import { isLegacyRoles, nameFromKey, slugFromKey } from './legacy.js';
import { toPlain, toYaml } from '../yaml/write.js';
import { isRecord } from '../rpc/jsonrpc.js';

export interface RepairOutcome {
  /** The new text, or undefined when nothing could be fixed. */
  text?: string;
  /** One line per change made, in the order made. */
  changes: string[];
}


function freeSlug(base: string, taken: Set<string>): string {
  let slug = base;
  for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
  return slug;
}

/** Repairs the modes of a customModes list in place; returns the change lines. */
function repairModes(list: unknown[]): string[] {
  const changes: string[] = [];
  const taken = new Set<string>();
  for (const raw of list) if (isRecord(raw) && typeof raw.slug === 'string' && SLUG_PATTERN.test(raw.slug)) taken.add(raw.slug);
  const claimed = new Set<string>();
  list.forEach((raw, i) => {
    if (!isRecord(raw)) return;
    const label = () => (typeof raw.slug === 'string' && raw.slug ? `mode "${raw.slug}"` : `customModes[${i}]`);
    const valid = typeof raw.slug === 'string' && SLUG_PATTERN.test(raw.slug);
    if (!valid && (typeof raw.slug === 'string' || (raw.slug === undefined && typeof raw.name === 'string'))) {
      const from = typeof raw.slug === 'string' && slugFromKey(raw.slug) ? raw.slug : typeof raw.name === 'string' ? raw.name : '';
      const base = slugFromKey(from).toLowerCase();
      if (base) {
        const slug = freeSlug(base, taken);
        changes.push(`${label()}: slug ${raw.slug === undefined ? '(missing)' : JSON.stringify(raw.slug)} → "${slug}"`);
        raw.slug = slug;
        taken.add(slug);
      }
    } else if (valid && claimed.has(raw.slug as string)) {
      const slug = freeSlug(raw.slug as string, taken);
      changes.push(`${label()}: the second mode with this slug renamed to "${slug}"`);
      raw.slug = slug;
      taken.add(slug);
    }
    if (typeof raw.slug === 'string') claimed.add(raw.slug);
    if (Array.isArray(raw.groups)) {
      const seen = new Set<string>();
      const kept = raw.groups.filter((g: unknown) => {
        const name: unknown = Array.isArray(g) ? g[0] : g;
        if (!isGroupName(name)) {
          changes.push(`${label()}: unknown tool group ${JSON.stringify(name)} removed`);
          return false;
        }
        if (seen.has(name)) {
          changes.push(`${label()}: repeated tool group "${name}" removed (the first one is kept)`);
          return false;
        }
        seen.add(name);
        return true;
      });
      raw.groups = kept;
    }
    if ((raw.name === undefined || raw.name === '') && typeof raw.slug === 'string' && SLUG_PATTERN.test(raw.slug)) {
      const { slug, name: _missing, ...rest } = raw;
      const name = nameFromKey(raw.slug);
      // Written right after the slug, where a reader looks for it.
      list[i] = { slug, name, ...rest };
      changes.push(`${label()}: name set to "${name}" from the slug`);
    }
  });
  return changes;
}

/**
 * The repaired text of `text`. Character cleaning alone keeps the file as written; structural
 * fixes rewrite it from its data (comments are not kept; the caller backs the file up first).
 */
export function repairSetText(text: string, asJson = false): RepairOutcome {
  const changes: string[] = [];
  const withoutBom = text.replace(/^\uFEFF/, '');
  const cleaned = cleanRooText(withoutBom);
  if (cleaned !== withoutBom) changes.push('invisible and typographic characters replaced with plain ones');
  let doc: unknown;
  try {
    doc = readModeFileText(cleaned, { jsonFallback: true }).value;
  } catch {
    return changes.length ? { text: cleaned, changes } : { changes };
  }
  if (!isRecord(doc) || isLegacyRoles(doc) || !Array.isArray(doc.customModes)) {
    return changes.length ? { text: cleaned, changes } : { changes };
  }
  const structural = repairModes(doc.customModes);
  if (structural.length === 0) return changes.length ? { text: cleaned, changes } : { changes };
  changes.push(...structural);
  if (asJson) return { text: `${JSON.stringify(toPlain(doc), null, 2)}\n`, changes };
  const header = /^\s*#/m.test(cleaned) ? ['Rewritten by orchestrator_mode_validate (repair); the comments of the previous version are in its backup.'] : [];
  return { text: toYaml(toPlain(doc), header), changes };
}
