// Query parameter shapes shared by the list endpoints: orderings over a fixed set of fields and
// boolean flags, each a 400 naming the parameter when malformed.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';

/** Turns `ordering=-name,slug` into terms over a fixed set of fields; anything else is a 400. */
export function orderingQuery<F extends string>(fields: readonly F[], aliases: Record<string, F> = {}) {
  return z.string().transform((value, ctx): Array<{ field: F; descending: boolean }> => {
    const parsed: Array<{ field: F; descending: boolean }> = [];
    for (const term of value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '')) {
      const name = term.replace(/^-/, '');
      // Own aliases only: `constructor` or `__proto__` must not find Object.prototype's members.
      const field = (fields as readonly string[]).includes(name) ? (name as F) : Object.hasOwn(aliases, name) ? aliases[name] : undefined;
      if (field === undefined) {
        ctx.addIssue({ code: 'custom', message: `Unknown ordering field "${name}". Choose from: ${fields.join(', ')}.` });
        return z.NEVER;
      }
      parsed.push({ field, descending: term.startsWith('-') });
    }
    return parsed;
  });
}

/** `true`/`1`, `false`/`0`, or `all`/`*` (no filter, read as undefined). */
export function tristateQuery(defaultValue: 'true' | 'false') {
  return z
    .enum(['true', '1', 'false', '0', 'all', '*'])
    .default(defaultValue)
    .transform((value) => (value === 'all' || value === '*' ? undefined : value === 'true' || value === '1'));
}

export const flagQuery = lazySchema(() => z.enum(['true', '1', 'false', '0']).transform((value) => value === 'true' || value === '1'));
