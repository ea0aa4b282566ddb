// How a group's Lambda entry is bundled. CDK's NodejsFunction and the bundle benchmark both use
// these options, so what is measured is what is deployed.
import type { GroupCapability } from '#functions/groups.ts';
export const LAMBDA_NODE_TARGET = 'node22';

/** PGlite (27 MB) is the embedded database of the dev server and tests; Lambdas never load it. */
export const LAMBDA_EXTERNAL_MODULES = ['@electric-sql/pglite'];

/** ESM bundles still meet CommonJS dependencies that call `require`; give them one. */
export const LAMBDA_ESM_BANNER =
  "import { createRequire as __tesseraCreateRequire } from 'node:module'; const require = __tesseraCreateRequire(import.meta.url);";

/** Options in esbuild's own terms (the bundle benchmark calls esbuild directly). */
export const lambdaEsbuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: LAMBDA_NODE_TARGET,
  minify: true,
  sourcemap: false,
  mainFields: ['module', 'main'],
  external: LAMBDA_EXTERNAL_MODULES,
  banner: { js: LAMBDA_ESM_BANNER },
  legalComments: 'none',
} as const;

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
    // No Lambda runs a state machine in-process: Step Functions does (aws-local-stepfunctions is local only).
    'process.env.TESSERA_BUNDLE_LOCAL_WORKFLOWS': excluded,
  };
}
