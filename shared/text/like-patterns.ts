// LIKE / ILIKE patterns from user text: `%`, `_` and `\` are escaped so they match themselves
// (backslash is PostgreSQL's default LIKE escape), then the wildcard the search needs is added.

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/** Matches values containing `text`. */
export function containsPattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

/** Matches values starting with `text`. */
export function startsWithPattern(text: string): string {
  return `${escapeLike(text)}%`;
}
