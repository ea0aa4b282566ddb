// Lambda bundles carry prepared data and stand-ins instead of some packages (infra/bundling.ts):
// the MIME table instead of mime-db and mime-types, a disabled logger instead of `debug`. Bundled as
// a group is and run in a fresh `node`, the lookups answer exactly as the libraries do in the dev
// server, and the ZIP reader that uses `debug` still tells a Word document from a plain ZIP.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectType } from '#functions/storage/byte-signatures.ts';
import { buildLambdaBundle, type LambdaBundle } from '#infra/bundling.ts';
import { contentTypeOfName, extensionsOfMimeType, mimeTypeOfPath } from '#shared/http/mime-lookup.ts';
import { zipArchive } from '#test/support/archives.ts';

const run = promisify(execFile);

const NAMES = [
  'index.html',
  'app.3f9a1c2e.js',
  'styles.css',
  'data.json',
  'photo.JPG',
  'clip.mp4',
  'font.woff2',
  'README',
  '__proto__',
  'x.constructor',
];
const TYPES = ['image/jpeg', 'application/zip', 'text/plain', 'video/mp4', 'image/unknown', 'constructor'];
const DOCX = zipArchive([
  {
    name: '[Content_Types].xml',
    data:
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  },
  { name: 'word/document.xml', data: '<w:document/>' },
]);
const PLAIN_ZIP = zipArchive([{ name: 'notes.txt', data: 'hello' }]);

interface Answers {
  types: Array<string | undefined>;
  contentTypes: Array<string | undefined>;
  extensions: Array<readonly string[]>;
  detected: Array<{ mime: string; ext: string } | undefined>;
}

/** The probe's answers, from whichever copy of its functions `probe` is. */
async function answersOf(probe: {
  mimeTypeOfPath: typeof mimeTypeOfPath;
  contentTypeOfName: typeof contentTypeOfName;
  extensionsOfMimeType: typeof extensionsOfMimeType;
  detectType: typeof detectType;
}): Promise<Answers> {
  return {
    types: await Promise.all(NAMES.map((name) => probe.mimeTypeOfPath(name))),
    contentTypes: await Promise.all(NAMES.map((name) => probe.contentTypeOfName(name))),
    extensions: await Promise.all(TYPES.map((type) => probe.extensionsOfMimeType(type))),
    detected: await Promise.all([DOCX, PLAIN_ZIP].map((bytes) => probe.detectType(bytes))),
  };
}

describe('data and stand-ins a Lambda bundle carries', () => {
  let scratch: string;
  let bundle: LambdaBundle;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'tessera-bundled-lookups-'));
    bundle = buildLambdaBundle({ entry: 'test/support/bundled-lookups-probe.ts', outdir: path.join(scratch, 'bundle') });
  }, 120_000);

  afterAll(() => rm(scratch, { recursive: true, force: true }));

  it('answers MIME lookups and detects file types exactly as the libraries do unbundled', async () => {
    // Arrange: a script that runs the same calls on the bundle, as plain JavaScript
    const script = path.join(scratch, 'run.mjs');
    await writeFile(
      script,
      [
        `import * as probe from ${JSON.stringify(pathToFileURL(path.join(bundle.outdir, 'index.mjs')).href)};`,
        `const docx = Buffer.from(${JSON.stringify(DOCX.toString('base64'))}, 'base64');`,
        `const zip = Buffer.from(${JSON.stringify(PLAIN_ZIP.toString('base64'))}, 'base64');`,
        `const names = ${JSON.stringify(NAMES)};`,
        `const types = ${JSON.stringify(TYPES)};`,
        'const answers = {',
        '  types: await Promise.all(names.map((name) => probe.mimeTypeOfPath(name))),',
        '  contentTypes: await Promise.all(names.map((name) => probe.contentTypeOfName(name))),',
        '  extensions: await Promise.all(types.map((type) => probe.extensionsOfMimeType(type))),',
        '  detected: await Promise.all([docx, zip].map((bytes) => probe.detectType(bytes))),',
        '};',
        'process.stdout.write(JSON.stringify(answers));',
      ].join('\n'),
    );
    // Act
    const { stdout } = await run(process.execPath, [script], { env: { PATH: process.env.PATH } });
    const bundled = JSON.parse(stdout) as Answers;
    // Assess: the same answers (undefined is absent from JSON, as it is from the expected side)
    const expected = JSON.parse(
      JSON.stringify(await answersOf({ mimeTypeOfPath, contentTypeOfName, extensionsOfMimeType, detectType })),
    ) as Answers;
    expect(bundled).toEqual(expected);
    expect(bundled.contentTypes[0]).toBe('text/html; charset=utf-8');
    expect(bundled.detected).toEqual([
      { mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', ext: 'docx' },
      { mime: 'application/zip', ext: 'zip' },
    ]);
  });

  it('carries neither mime-db, mime-types nor debug', () => {
    const inputs = bundle.files.flatMap((file) => file.inputs.map((input) => input.path));
    expect(inputs.filter((input) => /node_modules\/(mime-db|mime-types|debug)\//.test(input))).toEqual([]);
    expect(inputs).toContain('node_modules/file-type/core.js');
  });
});
