// Fails on any runtime import cycle among the modules of functions/ and shared/. A cycle makes load
// order decide whether a module sees its neighbour's exports (a `const` read before it is set throws),
// and it ties modules together that should be layered. The graph is the one esbuild, which bundles the
// Lambdas, builds: type-only imports are erased (under `verbatimModuleSyntax` an `import { type X }`
// still loads its module and counts), and `await import()` is left out, as it loads after both sides.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCE_FOLDERS = ['functions', 'shared'];

async function sourceFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const folder of SOURCE_FOLDERS) {
    const entries = await readdir(path.join(ROOT, folder), { recursive: true });
    for (const entry of entries) {
      if (entry.endsWith('.ts') && !entry.endsWith('.d.ts')) files.push(path.join(folder, entry));
    }
  }
  return files;
}

/** Each module of functions/ and shared/ with the modules of those folders it imports statically. */
async function staticImportGraph(): Promise<Map<string, string[]>> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: await sourceFiles(),
    bundle: true,
    write: false,
    metafile: true,
    outdir: 'out',
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  });
  const inScope = (file: string) => SOURCE_FOLDERS.some((folder) => file.startsWith(`${folder}/`));
  const graph = new Map<string, string[]>();
  for (const [file, input] of Object.entries(result.metafile.inputs)) {
    if (!inScope(file)) continue;
    const imported = input.imports.filter((edge) => edge.kind === 'import-statement' && inScope(edge.path));
    graph.set(
      file,
      imported.map((edge) => edge.path),
    );
  }
  return graph;
}

/** The strongly connected components of more than one module, or of one that imports itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (module: string) => {
    index.set(module, index.size);
    lowLink.set(module, index.get(module)!);
    stack.push(module);
    onStack.add(module);
    for (const next of graph.get(module) ?? []) {
      if (!index.has(next)) {
        visit(next);
        lowLink.set(module, Math.min(lowLink.get(module)!, lowLink.get(next)!));
      } else if (onStack.has(next)) {
        lowLink.set(module, Math.min(lowLink.get(module)!, index.get(next)!));
      }
    }
    if (lowLink.get(module) !== index.get(module)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== module);
    if (component.length > 1 || graph.get(module)?.includes(module)) found.push(component.sort());
  };
  for (const module of graph.keys()) if (!index.has(module)) visit(module);
  return found;
}

describe('runtime imports of functions/ and shared/', () => {
  it('form no cycle', async () => {
    const graph = await staticImportGraph();
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph)).toEqual([]);
  });

  it('sees a cycle when there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts', 'd.ts']],
    ]);
    expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts']]);
  });
});
