// How a Lambda entry is bundled. CDK (TesseraFunction), the bundle benchmark and the bundle tests all
// call `buildLambdaBundle`, so what is measured and tested is what is deployed.
//
// The bundle is split: `index.mjs` holds what importing the handler runs, and every module reached
// only through `await import(...)` (the database driver, the AWS SDK clients and the credential
// providers a Lambda never uses, the password-strength estimator) is a chunk file beside it that
// Node reads when that import first runs. A cold start therefore parses only the code it executes.
import { cpSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync, type BuildOptions, type Metafile } from 'esbuild';
import mimeTypes from 'mime-types';
import { apiDescriptionFiles, PREBUILT_DESCRIPTION_DEFINE } from '#functions/docs/prebuilt-description.ts';
import type { DescribedGroup } from '#functions/docs/openapi-document.ts';
import type { EndpointGroup, GroupCapability } from '#functions/groups.ts';
import { mimeTableOf } from '#shared/http/mime-table.ts';
import { compressedJson } from '#shared/json/compressed-json.ts';

/** The deployed functions run on `nodejs22.x` (TesseraFunction); esbuild writes syntax it runs natively. */
const LAMBDA_NODE_TARGET = 'node22';

/**
 * PGlite (27 MB) is the embedded database of the dev server and tests; Lambdas never load it.
 * bowser (33 KB) parses a browser's user agent for the AWS SDK's browser build; the Node build
 * exports that code beside its own and never calls it, so the chunk would only be dead weight.
 */
const LAMBDA_EXTERNAL_MODULES = ['@electric-sql/pglite', 'bowser'];

/**
 * Packages a Lambda bundle takes from our own files instead: the SDK's default credential chain
 * becomes the environment provider alone, the only source Lambda uses (lambda/credentials-from-environment.ts),
 * semver the one function the X-Ray SDK calls (lambda/semver-gte.cjs), and debug a logger never
 * enabled (lambda/debug-disabled.ts).
 */
const LAMBDA_MODULE_ALIASES = {
  '@aws-sdk/credential-provider-node': './infra/lambda/credentials-from-environment.ts',
  semver: './infra/lambda/semver-gte.cjs',
  debug: './infra/lambda/debug-disabled.ts',
};

/** ESM bundles still meet CommonJS dependencies that call `require`; give every output file one. */
const LAMBDA_ESM_BANNER =
  "import { createRequire as __tesseraCreateRequire } from 'node:module'; const require = __tesseraCreateRequire(import.meta.url);";

/** The file the Lambda runtime imports (handler `index.handler`). */
export const LAMBDA_ENTRY_FILE = 'index.mjs';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Options in esbuild's own terms, less the entry, the output folder and the defines. */
export const lambdaEsbuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: LAMBDA_NODE_TARGET,
  minify: true,
  sourcemap: false,
  // Lazily imported modules become chunks. They sit in the same folder as index.mjs (not a
  // subfolder), so `import.meta.url` means the same folder in every one of them: the migrate
  // function finds `migrations/` beside itself whichever chunk asks.
  splitting: true,
  entryNames: 'index',
  chunkNames: '[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  mainFields: ['module', 'main'],
  external: LAMBDA_EXTERNAL_MODULES,
  alias: LAMBDA_MODULE_ALIASES,
  banner: { js: LAMBDA_ESM_BANNER },
  legalComments: 'none',
} as const satisfies BuildOptions;

/**
 * Constants esbuild writes into a group's bundle: the code of a capability the group does not use
 * sits behind one of these and is compiled out with the SDK it loads (the S3 client, multipart
 * uploader and presigner are some 160 KB, the SES client some 115 KB, that a group would otherwise
 * carry for nothing). CDK gives such a group no setting that would reach that code.
 */
export function capabilityDefines(uses: readonly GroupCapability[]): Record<string, string> {
  const excluded = JSON.stringify('excluded');
  return {
    ...(uses.includes('object-store') ? {} : { 'process.env.TESSERA_BUNDLE_OBJECT_STORE': excluded }),
    ...(uses.includes('email') ? {} : { 'process.env.TESSERA_BUNDLE_EMAIL': excluded }),
    ...(uses.includes('document-library') ? {} : { 'process.env.TESSERA_BUNDLE_DOCUMENT_LIBRARY': excluded }),
    // No Lambda runs a state machine in-process: Step Functions does (aws-local-stepfunctions is local only).
    'process.env.TESSERA_BUNDLE_LOCAL_WORKFLOWS': excluded,
    // Nor the embedded database: a Lambda reads Aurora through RDS Proxy.
    'process.env.TESSERA_BUNDLE_EMBEDDED_DATABASE': excluded,
  };
}

/**
 * Data every bundle carries prepared instead of the library that holds it, or finds elsewhere: the
 * MIME table (shared/http/bundled-mime-table.ts) as brotli-compressed JSON, some 12 KB where mime-db
 * is 150 KB, built from the mime-types installed now, so it answers as that library does; and where
 * the password word lists are. String constants: esbuild writes them only where they are read.
 */
function preparedDataDefines(): Record<string, string> {
  preparedData ??= {
    'process.env.TESSERA_BUNDLE_MIME_TABLE': JSON.stringify(compressedJson(mimeTableOf(mimeTypes))),
    // The password-strength word lists (1.6 MB as code) are read from the platform database, where
    // the deploy migration seeds them (shared/auth/password-words.ts), so no bundle carries them.
    'process.env.TESSERA_BUNDLE_PASSWORD_WORDS': JSON.stringify('database'),
  };
  return preparedData;
}
let preparedData: Record<string, string> | undefined;

/** A text file written beside index.mjs when the bundle is built. */
export interface WrittenFile {
  to: string;
  text: string;
}

/** How a bundle is built beyond its entry and folder (what CDK's bundling options carry). */
export interface BundleOptions {
  define?: Record<string, string>;
  /** Files or folders of the repository copied beside index.mjs, as `{ from: repo path, to: name }`. */
  copy?: ReadonlyArray<{ from: string; to: string }>;
  /** Files made when the bundle is built (a function: a synth that skips bundling never runs it). */
  write?: () => readonly WrittenFile[];
}

/**
 * How an endpoint group is bundled: its capability defines, the files it copies and, for the group
 * that serves the API description, that document written from every group's routes (`groups`).
 * CDK, the bundles benchmark and the bundle tests all ask here.
 */
export function groupBundleOptions(
  group: Pick<EndpointGroup, 'uses' | 'files' | 'servesApiDescription'>,
  groups: readonly DescribedGroup[],
): BundleOptions {
  if (group.servesApiDescription !== true) return { define: capabilityDefines(group.uses), copy: group.files };
  return {
    define: { ...capabilityDefines(group.uses), ...PREBUILT_DESCRIPTION_DEFINE },
    copy: group.files,
    write: () => apiDescriptionFiles(groups),
  };
}

export interface LambdaBundleRequest extends BundleOptions {
  /** Source of the handler, relative to the repository root or absolute. */
  entry: string;
  /** Folder to write index.mjs and its chunks into; it should be empty. */
  outdir: string;
}

interface BundleFile {
  /** Relative to the bundle folder. */
  name: string;
  bytes: number;
  /** Read when index.mjs is imported (index.mjs itself and the chunks it imports statically). */
  loadedOnImport: boolean;
  /** Source files bundled into it (paths relative to the repository root) with their bytes in it. */
  inputs: Array<{ path: string; bytes: number }>;
}

export interface LambdaBundle {
  outdir: string;
  files: BundleFile[];
  /** What a cold import reads and compiles: index.mjs and its static imports. */
  importBytes: number;
  /** Every file of the bundle, chunks only loaded on demand included. */
  totalBytes: number;
  metafile: Metafile;
}

/** Bundles `entry` into `outdir` (synchronously: CDK's local bundling hook is synchronous). */
export function buildLambdaBundle(request: LambdaBundleRequest): LambdaBundle {
  const result = buildSync({
    ...lambdaEsbuildOptions,
    mainFields: [...lambdaEsbuildOptions.mainFields], // the same list; esbuild's type wants it mutable
    external: [...lambdaEsbuildOptions.external],
    absWorkingDir: REPO_ROOT,
    entryPoints: [path.resolve(REPO_ROOT, request.entry)],
    outdir: request.outdir,
    define: { ...preparedDataDefines(), ...request.define },
    metafile: true,
    logLevel: 'error',
  });
  for (const { from, to } of request.copy ?? []) {
    cpSync(path.resolve(REPO_ROOT, from), path.join(request.outdir, to), { recursive: true });
  }
  for (const { to, text } of request.write?.() ?? []) writeFileSync(path.join(request.outdir, to), text);
  const metafile = result.metafile!;
  const outputs = metafile.outputs;
  const outputPath = (name: string) => path.resolve(REPO_ROOT, name);
  const entryOutput = Object.keys(outputs).find(
    (name) => path.basename(name) === LAMBDA_ENTRY_FILE && outputs[name]!.entryPoint !== undefined,
  );
  if (entryOutput === undefined) throw new Error(`esbuild wrote no ${LAMBDA_ENTRY_FILE} for ${request.entry}`);
  const loaded = new Set<string>();
  const pending = [entryOutput];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (loaded.has(name)) continue;
    loaded.add(name);
    for (const imported of outputs[name]!.imports) {
      if (imported.kind === 'import-statement' && outputs[imported.path] !== undefined) pending.push(imported.path);
    }
  }
  const files = Object.keys(outputs).map((name) => ({
    name: path.relative(request.outdir, outputPath(name)),
    bytes: statSync(outputPath(name)).size,
    loadedOnImport: loaded.has(name),
    inputs: Object.entries(outputs[name]!.inputs).map(([input, { bytesInOutput }]) => ({ path: input, bytes: bytesInOutput })),
  }));
  const sum = (list: BundleFile[]) => list.reduce((total, file) => total + file.bytes, 0);
  return {
    outdir: request.outdir,
    files,
    importBytes: sum(files.filter((file) => file.loadedOnImport)),
    totalBytes: sum(files),
    metafile,
  };
}
