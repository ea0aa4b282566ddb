// Values of raw SQL rows read the same on both drivers.

/** Timestamps: both drivers answer Date; text is accepted too. Null stays null. */
export function isoTime(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(String(value))).toISOString();
}
