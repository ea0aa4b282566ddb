// An entry test/infra/bundled-lookups.test.ts bundles as a Lambda group is bundled, then runs in a
// plain `node`: the MIME lookups and the byte-signature detection through the data and the
// stand-ins the bundle carries in place of mime-db and `debug`.
export { contentTypeOfName, extensionsOfMimeType, mimeTypeOfPath } from '#shared/http/mime-lookup.ts';
export { detectType } from '#functions/storage/byte-signatures.ts';
