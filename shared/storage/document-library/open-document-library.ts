// Opens the document library the configuration names, when it names one. Its client (Microsoft Graph) is
// loaded only then: the embedded default and the groups without document-library buckets never
// read it, and Lambdas of those groups are bundled with it compiled out (capabilityDefines in
// infra/bundling.ts), as CDK gives them no settings that would reach it.
import type { Config } from '#shared/config.ts';
import type { DocumentLibrary } from './document-library.ts';

/** The configured document library, or undefined when the platform has none. */
export async function openDocumentLibrary(config: Pick<Config, 'documentLibrary'>): Promise<DocumentLibrary | undefined> {
  if (config.documentLibrary === undefined) return undefined;
  if (process.env.TESSERA_BUNDLE_DOCUMENT_LIBRARY !== 'excluded') {
    const { DocumentLibrary } = await import('./document-library.ts');
    return new DocumentLibrary(config.documentLibrary);
  }
  throw new Error('This function was bundled without the document library (its group does not use it)');
}
