// `node --import ./infra/local/typescript/register.mjs <entry>.ts`: runs the TypeScript sources as
// they are, for the long-lived processes (`npm start`, `npm run bench`, the servers tests spawn).
// tsx is the project's runner for one-shot scripts, but its transform keeps every function's name
// (`keepNames`): each closure made while serving a request is given its name by a call of
// Object.defineProperty, about 4% of the dev server's CPU per request (a related-filter list on the
// relations fixture: 0.329-0.346 ms of node per request under tsx, 0.316-0.327 here). Each file goes
// through esbuild's plain transform instead (names as the language gives them, as in the deployed
// bundles), with the project's tsconfig, and stack traces map back to the sources.
import { register } from 'node:module';

process.setSourceMapsEnabled(true);
register('./hooks.mjs', import.meta.url);
