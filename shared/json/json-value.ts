// Any JSON value, as one schema instance the whole code base shares. `z.json()` is recursive (a
// lazy union that names itself); registered under an id, the OpenAPI document describes it once as
// a component that refers to itself, where an unnamed copy would recurse without end.
import * as z from 'zod';
import { lazySchema } from '#shared/http/lazy-schema.ts';

export const jsonValue = lazySchema(() => z.json().register(z.globalRegistry, { id: 'JsonValue', description: 'Any JSON value' }));
