// Issue 2 (b): for each endpoint group, the Lambda bundle as deployed (esbuild with exactly
// `lambdaEsbuildOptions`) — its size against the 1.5 MB target, and its cold import time in a fresh
// Node process against the import of a trivial ESM file measured the same way.
import { execFile } from 'node:child_process';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { endpointGroups } from '#functions/groups.ts';
import { capabilityDefines, lambdaEsbuildOptions } from '#infra/bundling.ts';
import type { GroupCapability } from '#functions/groups.ts';
import { fixed, heading, median, note, ratioAgainst, table } from './report.ts';
import { benchSettings } from './settings.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT_DIR = path.join(ROOT, '.bench');
const PROBE = fileURLToPath(new URL('./import-probe.mjs', import.meta.url));
const TARGET_KB = 1.5 * 1024;
const TARGET_IMPORT_MS = 300;

interface Bundle {
  name: string;
  file: string;
  bytes: number;
  /** Bytes in the bundle per npm package (or `(own code)`), largest first. */
  contributors: Array<[string, number]>;
}

function contributorsOf(metafile: Metafile): Array<[string, number]> {
  const totals = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
      const owner = match?.[1] ?? '(own code)';
      totals.set(owner, (totals.get(owner) ?? 0) + bytesInOutput);
    }
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}

async function bundleGroup(name: string, entry: string, uses: readonly GroupCapability[]): Promise<Bundle> {
  const file = path.join(OUT_DIR, name, 'index.mjs');
  const result = await build({
    ...lambdaEsbuildOptions,
    mainFields: [...lambdaEsbuildOptions.mainFields], // the same list; esbuild's type wants it mutable
    absWorkingDir: ROOT,
    entryPoints: [path.join(ROOT, entry)],
    define: capabilityDefines(uses), // as TesseraFunction bundles the group
    outfile: file,
    metafile: true,
    logLevel: 'error',
  });
  return { name, file, bytes: (await stat(file)).size, contributors: contributorsOf(result.metafile!) };
}

/** Milliseconds `import()` of `file` takes in a fresh plain node process. */
async function coldImportMs(file: string): Promise<number> {
  const env = { ...process.env };
  delete env.NODE_OPTIONS; // no tsx loader in the probe
  const { stdout } = await run(process.execPath, [PROBE, file], { env, cwd: OUT_DIR });
  return Number(stdout.trim());
}

export async function benchBundles(): Promise<void> {
  const settings = benchSettings();
  heading('bundles: Lambda bundle size and cold import time per endpoint group');
  await rm(OUT_DIR, { recursive: true, force: true });
  await mkdir(OUT_DIR, { recursive: true });
  const trivial = path.join(OUT_DIR, 'trivial.mjs');
  await writeFile(trivial, 'export const handler = async () => ({ statusCode: 200 });\n');

  const bundles: Bundle[] = [];
  for (const group of endpointGroups) bundles.push(await bundleGroup(group.name, group.entry, group.uses));
  note(`esbuild ${lambdaEsbuildOptions.format}, ${lambdaEsbuildOptions.target}, minify ${lambdaEsbuildOptions.minify}, external ${lambdaEsbuildOptions.external.join(', ')} (lambdaEsbuildOptions) into .bench/<group>/index.mjs`);
  table(
    ['group', 'size KB', 'of 1.5 MB target', 'largest parts (KB)'],
    bundles.map((bundle) => [
      bundle.name,
      fixed(bundle.bytes / 1024),
      ratioAgainst(bundle.bytes / 1024 / TARGET_KB, 1, false),
      bundle.contributors
        .slice(0, 4)
        .map(([owner, bytes]) => `${owner} ${fixed(bytes / 1024, 0)}`)
        .join(', '),
    ]),
  );

  // Interleaved, so a slow moment of the machine hits every target alike.
  const targets = [{ name: 'trivial ESM (baseline)', file: trivial }, ...bundles];
  const times = new Map<string, number[]>(targets.map((target) => [target.name, []]));
  await coldImportMs(trivial); // the first process start after writing files pays for the page cache
  for (let round = 0; round < settings.importRuns; round += 1) {
    for (const target of targets) times.get(target.name)!.push(await coldImportMs(target.file));
  }
  const baselineMs = median(times.get(targets[0]!.name)!);
  note(`cold import: median of ${settings.importRuns} fresh \`node\` processes each, timing \`await import(bundle)\` (test/bench/import-probe.mjs)`);
  table(
    ['module', 'median ms', 'min ms', 'max ms', 'minus baseline ms', `vs ${TARGET_IMPORT_MS} ms target`],
    targets.map((target) => {
      const runs = times.get(target.name)!;
      const ms = median(runs);
      const isBaseline = target === targets[0];
      return [
        target.name,
        fixed(ms),
        fixed(Math.min(...runs)),
        fixed(Math.max(...runs)),
        isBaseline ? '' : fixed(ms - baselineMs),
        isBaseline ? '' : ratioAgainst(ms / TARGET_IMPORT_MS, 1, false),
      ];
    }),
  );
}
