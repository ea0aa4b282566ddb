// Slugs generated from names (lowercase, hyphens, no special characters) and made unique with a
// numeric suffix: `acme`, `acme-2`, `acme-3`, ...
import { lazyImport } from '#shared/lazy-import.ts';

export const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Text of the form of a UUID, in any case. Console paths take a UUID where a slug or username goes
 * (spec, Conventions), so nothing may be given a name of that form: it would answer for another row.
 */
export function looksLikeUuid(text: string): boolean {
  return UUID_SHAPE.test(text);
}

/** Why a slug of that form, or a name that would give one, is refused: by the field that carried it. */
export const UUID_SHAPED_SLUG = {
  slug: 'A slug may not look like a UUID: UUIDs are reserved for addressing.',
  name: 'This name would give a slug that looks like a UUID, which is reserved for addressing; choose another name.',
} as const;

type Slugify = (text: string, options: { lower: boolean; strict: boolean; trim: boolean }) => string;

// slugify's UMD wrapper builds its character maps twice when it loads (1 to 2 ms), and most cold
// starts create nothing that needs a slug, so it loads on the first name slugged. It ships CommonJS
// with `export =`: both Node and an esbuild bundle give a dynamic import of it the function as
// `default`.
const loadSlugify = lazyImport(async () => (await import('slugify')).default as unknown as Slugify);

export async function slugFrom(name: string, maxLength = 50): Promise<string> {
  const slugify = await loadSlugify();
  return slugify(name, { lower: true, strict: true, trim: true }).slice(0, maxLength).replace(/-+$/, '');
}

/**
 * The first of `base`, `base-2`, `base-3`, ... that is neither reserved nor taken. `takenLike` gets
 * the base and answers every existing slug that starts with it, so one query serves all candidates.
 */
export async function uniqueSlug(
  base: string,
  takenLike: (base: string) => Promise<Iterable<string>>,
  options: { reserved?: ReadonlySet<string>; maxLength?: number } = {},
): Promise<string> {
  const maxLength = options.maxLength ?? 50;
  const taken = new Set(await takenLike(base));
  for (const slug of options.reserved ?? []) taken.add(slug);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, maxLength - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}
