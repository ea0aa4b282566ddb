// language-en's messages by their own file (zxcvbn-estimator.ts says why). The package types the
// file as translations.d.ts, which TypeScript does not pair with an .mjs import.
declare module '@zxcvbn-ts/language-en/dist/translations.mjs' {
  import type { TranslationKeys } from '@zxcvbn-ts/core';

  const translations: TranslationKeys;
  export default translations;
}
