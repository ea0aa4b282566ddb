// Run by the bundle benchmark in a fresh, plain `node` (no tsx): imports one module and prints how
// many milliseconds the import took. Plain JavaScript so nothing but Node itself is loaded first.
import { pathToFileURL } from 'node:url';

const target = process.argv[2];
if (target === undefined) throw new Error('usage: node import-probe.mjs <module file>');
const startedAt = performance.now();
await import(pathToFileURL(target).href);
process.stdout.write(`${performance.now() - startedAt}\n`);
