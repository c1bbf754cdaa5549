// How a mode's name is drawn: the emoji it begins with as its icon (built-in names carry one), else
// the first letter on a badge. Pure string work on the name; no DOM.

/** A leading emoji (with its variation selector and any joined parts), then the rest of the name. */
const LEADING_EMOJI = /^(\p{Extended_Pictographic}(?:\uFE0F|\u200D\p{Extended_Pictographic})*)\s*(.*)$/su;

export interface NameParts { icon: string; badge: boolean; label: string }

export function nameParts(name: string): NameParts {
  const m = LEADING_EMOJI.exec(name.trim());
  if (m && m[2]) return { icon: m[1]!, badge: false, label: m[2] };
  const label = name.trim() || '?';
  return { icon: [...label][0]!.toUpperCase(), badge: true, label };
}
