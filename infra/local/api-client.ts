// `npm run client:generate`: writes the OpenAPI document and the typed client's types generated
// from it (clients/typescript/). openapi-typescript lives in that workspace with the TypeScript 5
// whose compiler API it needs (the root's TypeScript 7 has none), so its CLI is run from there.
// test/unit/docs/api-client-types.test.ts fails when the checked-in files drift from the route tables.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { endpointGroups } from '#functions/groups.ts';
import { buildOpenApiDocument } from '#functions/docs/openapi-document.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLIENT_ROOT = path.join(REPO_ROOT, 'clients/typescript');

/** Where the checked-in files live. */
export const CLIENT_FILES = {
  document: path.join(CLIENT_ROOT, 'openapi.json'),
  types: path.join(CLIENT_ROOT, 'src/schema.d.ts'),
};

/** The document as the client package keeps it: indented, one trailing newline. */
export function apiDocumentText(): string {
  return `${JSON.stringify(buildOpenApiDocument(endpointGroups), null, 2)}\n`;
}

/** Runs openapi-typescript on a document file, writing the types to `typesPath`. */
export async function generateClientTypes(documentPath: string, typesPath: string): Promise<void> {
  await mkdir(path.dirname(typesPath), { recursive: true });
  await promisify(execFile)(path.join(CLIENT_ROOT, 'node_modules/.bin/openapi-typescript'), [documentPath, '--output', typesPath], {
    cwd: CLIENT_ROOT,
  });
}

async function main(): Promise<void> {
  await writeFile(CLIENT_FILES.document, apiDocumentText());
  await generateClientTypes(CLIENT_FILES.document, CLIENT_FILES.types);
  console.log(`wrote ${path.relative(REPO_ROOT, CLIENT_FILES.document)} and ${path.relative(REPO_ROOT, CLIENT_FILES.types)}`);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
