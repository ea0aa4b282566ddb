// The OpenAPI document as the files a docs bundle carries (`API_DESCRIPTION_FILES`), built from the
// route tables when the bundle is built. Imported by the bundler only, never by a Lambda.
import { stringify } from 'yaml';
import { API_DESCRIPTION_FILES } from './api-description.ts';
import { buildOpenApiDocument, type DescribedGroup } from './openapi-document.ts';

/** The define under which api-description.ts reads those files instead of building the document. */
export const PREBUILT_DESCRIPTION_DEFINE = { 'process.env.TESSERA_BUNDLE_API_DESCRIPTION': JSON.stringify('prebuilt') };

export function apiDescriptionFiles(groups: readonly DescribedGroup[]): Array<{ to: string; text: string }> {
  const json = JSON.stringify(buildOpenApiDocument(groups));
  // From the JSON text, as the dev server does, so both texts describe the same values.
  return [
    { to: API_DESCRIPTION_FILES.json, text: json },
    { to: API_DESCRIPTION_FILES.yaml, text: stringify(JSON.parse(json)) },
  ];
}
