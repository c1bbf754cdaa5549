// Keyboard use of the modes table as an ARIA grid: one cell in the tab order, arrows move between
// cells, Home/End (with Ctrl: of the table), Enter picks the row's mode. Owns the cells' tabindex only.

const STEP_PAGE = 10;

export interface GridKeys {
  /** Runs `draw`; the cell that had the tab stop (same mode, same column) keeps it, and focus if it had it. */
  redraw(draw: () => void): void;
}

export function keyboardGrid(table: HTMLTableElement, choose: (slug: string) => void): GridKeys {
  // Where the tab stop is, by mode slug (header row: null) and column, so a redraw can find it again.
  const at = { slug: null as string | null, col: 0 };
  const rows = (): HTMLTableRowElement[] => [...table.rows];
  const cellsOf = (row: HTMLTableRowElement): HTMLTableCellElement[] => [...row.cells];
  const rowIndex = (): number => {
    const i = rows().findIndex((r) => (r.dataset.slug ?? null) === at.slug);
    return i < 0 ? Math.min(1, rows().length - 1) : i;
  };

  const place = (rowAt: number, colAt: number, focus: boolean): void => {
    const all = rows();
    if (all.length === 0) return;
    const r = Math.max(0, Math.min(all.length - 1, rowAt));
    const cells = cellsOf(all[r]!);
    const c = Math.max(0, Math.min(cells.length - 1, colAt));
    for (const row of all) for (const cell of cellsOf(row)) cell.tabIndex = -1;
    const cell = cells[c]!;
    cell.tabIndex = 0;
    at.slug = all[r]!.dataset.slug ?? null;
    at.col = c;
    if (focus) cell.focus();
  };

  table.addEventListener('keydown', (e) => {
    const cell = (e.target as HTMLElement).closest('td, th');
    if (!(cell instanceof HTMLTableCellElement) || !table.contains(cell)) return;
    const row = cell.parentElement as HTMLTableRowElement;
    const r = rows().indexOf(row);
    const c = cell.cellIndex;
    const last = cellsOf(row).length - 1;
    const moves: Record<string, [number, number] | undefined> = {
      ArrowRight: [r, c + 1], ArrowLeft: [r, c - 1], ArrowDown: [r + 1, c], ArrowUp: [r - 1, c],
      PageDown: [r + STEP_PAGE, c], PageUp: [r - STEP_PAGE, c],
      Home: e.ctrlKey ? [0, 0] : [r, 0], End: e.ctrlKey ? [rows().length - 1, last] : [r, last],
    };
    const to = moves[e.key];
    if (to) {
      e.preventDefault();
      place(to[0], to[1], true);
    } else if ((e.key === 'Enter' || e.key === ' ') && row.dataset.slug !== undefined) {
      e.preventDefault();
      choose(row.dataset.slug);
    }
  });
  // A click moves the tab stop too, so Tab back into the table returns where the pointer was.
  table.addEventListener('focusin', (e) => {
    const cell = (e.target as HTMLElement).closest('td, th');
    if (cell instanceof HTMLTableCellElement && cell.tabIndex === -1) place(rows().indexOf(cell.parentElement as HTMLTableRowElement), cell.cellIndex, false);
  });

  return {
    redraw(draw: () => void): void {
      const hadFocus = table.contains(document.activeElement);
      draw();
      place(rowIndex(), at.col, hadFocus);
    },
  };
}
