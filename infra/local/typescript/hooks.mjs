// Module hooks (run by Node on its loader thread; registered by register.mjs): a `.ts` file is
// transformed by esbuild to an ES module with an inline source map. Resolution is Node's own: the
// sources import with their `.ts` extensions and `#` imports map through package.json.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

/** The compiler options esbuild reads (verbatimModuleSyntax, target and the like), from the project's tsconfig. */
const { compilerOptions } = JSON.parse(readFileSync(new URL('../../../tsconfig.json', import.meta.url), 'utf8'));

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const { code } = await transform(await readFile(path, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    // Node 20 reads `with { type: 'json' }`; esbuild's node20 target would refuse it.
    supported: { 'import-attributes': true },
    tsconfigRaw: { compilerOptions },
    sourcemap: 'inline',
    sourcefile: path,
  });
  return { format: 'module', source: code, shortCircuit: true };
}
