// The served OpenAPI document, as JSON and as YAML text, kept for the life of the process.
//
// Deployed, both texts were written beside the bundle's code when it was built
// (`apiDescriptionFiles`, called by infra/bundling.ts), so the docs Lambda carries no other group's
// routes, handlers or dependencies, and its first request for the document reads a file instead of
// importing every route table and running the generator (some 200 ms). Locally (the dev server,
// the tests) the document is built from the route tables on the first request for it; the route
// tables and the generator are imported only then.
import { readFile } from 'node:fs/promises';

/** Names of the prebuilt texts beside index.mjs (and its chunks, which share its folder). */
export const API_DESCRIPTION_FILES = { json: 'openapi.json', yaml: 'openapi.yaml' } as const;

let json: Promise<string> | undefined;
let yaml: Promise<string> | undefined;

/** Forgets a failed build or read, so the next request tries again instead of failing forever. */
function retriedOnFailure(text: Promise<string>, forget: () => void): Promise<string> {
  text.catch(forget);
  return text;
}

function prebuiltText(name: string): Promise<string> {
  return readFile(new URL(`./${name}`, import.meta.url), 'utf8');
}

async function builtJson(): Promise<string> {
  // The bundler's define makes this condition constant: deployed, the branch and its imports are gone.
  if (process.env.TESSERA_BUNDLE_API_DESCRIPTION !== 'prebuilt') {
    const [{ endpointGroups }, { buildOpenApiDocument }] = await Promise.all([
      import('#functions/groups.ts'),
      import('./openapi-document.ts'),
    ]);
    return JSON.stringify(buildOpenApiDocument(endpointGroups));
  }
  return prebuiltText(API_DESCRIPTION_FILES.json);
}

async function builtYaml(): Promise<string> {
  if (process.env.TESSERA_BUNDLE_API_DESCRIPTION !== 'prebuilt') {
    const [text, { stringify }] = await Promise.all([apiDescriptionJson(), import('yaml')]);
    return stringify(JSON.parse(text));
  }
  return prebuiltText(API_DESCRIPTION_FILES.yaml);
}

export function apiDescriptionJson(): Promise<string> {
  json ??= retriedOnFailure(builtJson(), () => {
    json = undefined;
  });
  return json;
}

export function apiDescriptionYaml(): Promise<string> {
  yaml ??= retriedOnFailure(builtYaml(), () => {
    yaml = undefined;
  });
  return yaml;
}
