// The served OpenAPI document: built from every group's route table on the first request for it and
// kept for the life of the process. The route tables and the generator are imported only then, so
// the docs Lambda's cold start reads neither (they sit in chunks of its bundle).
let json: Promise<string> | undefined;
let yaml: Promise<string> | undefined;

async function buildDocument(): Promise<Record<string, unknown>> {
  const [{ endpointGroups }, { buildOpenApiDocument }] = await Promise.all([
    import('#functions/groups.ts'),
    import('./openapi-document.ts'),
  ]);
  return buildOpenApiDocument(endpointGroups);
}

const document = (): Promise<Record<string, unknown>> => buildDocument();

export function apiDescriptionJson(): Promise<string> {
  json ??= document().then((built) => JSON.stringify(built));
  json.catch(() => {
    json = undefined;
  });
  return json;
}

export function apiDescriptionYaml(): Promise<string> {
  yaml ??= Promise.all([apiDescriptionJson(), import('yaml')]).then(([text, { stringify }]) => stringify(JSON.parse(text)));
  yaml.catch(() => {
    yaml = undefined;
  });
  return yaml;
}
