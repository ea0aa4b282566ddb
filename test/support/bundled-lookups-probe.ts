// An entry test/infra/bundled-lookups.test.ts bundles as a Lambda group is bundled, then runs in a
// plain `node`: the MIME lookups and the byte-signature detection through the data and the
// stand-ins the bundle carries in place of mime-db and `debug`. The test runs the same function
// unbundled for the answers to expect.
import { detectType } from '#functions/storage/byte-signatures.ts';
import { contentTypeOfName, extensionsOfMimeType, mimeTypeOfPath } from '#shared/http/mime-lookup.ts';

export interface LookupQuestions {
  names: string[];
  types: string[];
  /** Files, in base64, whose type the bytes tell. */
  files: string[];
}

export async function lookupAnswers(questions: LookupQuestions) {
  return {
    types: await Promise.all(questions.names.map((name) => mimeTypeOfPath(name))),
    contentTypes: await Promise.all(questions.names.map((name) => contentTypeOfName(name))),
    extensions: await Promise.all(questions.types.map((type) => extensionsOfMimeType(type))),
    detected: await Promise.all(questions.files.map((file) => detectType(Buffer.from(file, 'base64')))),
  };
}
