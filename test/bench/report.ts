// Printing for the benchmarks: aligned tables, ratios against a baseline measured in the same run,
// and the median. Benchmarks print figures; they never pass or fail on them.

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function fixed(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

/** `0.71 (target ≥ 0.6: met)`; `higherIsBetter` says which side of the target is good. */
export function ratioAgainst(ratio: number, target: number, higherIsBetter: boolean): string {
  const met = higherIsBetter ? ratio >= target : ratio <= target;
  return `${fixed(ratio, 2)} (target ${higherIsBetter ? '≥' : '≤'} ${target}: ${met ? 'met' : 'MISSED'})`;
}

export function heading(title: string): void {
  console.log(`\n== ${title} ==`);
}

export function note(text: string): void {
  console.log(`   ${text}`);
}

/** Prints rows under a header with columns padded to the widest cell; numbers align right. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): void {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  console.log(`   ${line(header)}`);
  for (const row of rows) console.log(`   ${line(row)}`);
}
