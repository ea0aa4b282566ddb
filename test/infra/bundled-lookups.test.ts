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
import { buildLambdaBundle, type LambdaBundle } from '#infra/bundling.ts';
import { zipArchive } from '#test/support/archives.ts';
import { lookupAnswers, type LookupQuestions } from '#test/support/bundled-lookups-probe.ts';

const run = promisify(execFile);

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

const QUESTIONS: LookupQuestions = {
  names: [
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
  ],
  types: ['image/jpeg', 'application/zip', 'text/plain', 'video/mp4', 'image/unknown', 'constructor'],
  files: [DOCX.toString('base64'), PLAIN_ZIP.toString('base64')],
};

describe('data and stand-ins a Lambda bundle carries', () => {
  let scratch: string;
  let bundle: LambdaBundle;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'tessera-bundled-lookups-'));
    bundle = buildLambdaBundle({ entry: 'test/support/bundled-lookups-probe.ts', outdir: path.join(scratch, 'bundle') });
  }, 120_000);

  afterAll(() => rm(scratch, { recursive: true, force: true }));

  it('answers MIME lookups and detects file types exactly as the libraries do unbundled', async () => {
    // Arrange: a plain JavaScript script that asks the bundle the same questions
    const script = path.join(scratch, 'run.mjs');
    const bundled = pathToFileURL(path.join(bundle.outdir, 'index.mjs')).href;
    await writeFile(
      script,
      `import { lookupAnswers } from ${JSON.stringify(bundled)};\n` +
        `process.stdout.write(JSON.stringify(await lookupAnswers(${JSON.stringify(QUESTIONS)})));\n`,
    );
    // Act
    const { stdout } = await run(process.execPath, [script], { env: { PATH: process.env.PATH } });
    const answers = JSON.parse(stdout) as Awaited<ReturnType<typeof lookupAnswers>>;
    // Assess: the same answers (undefined is left out of JSON on both sides)
    expect(answers).toEqual(JSON.parse(JSON.stringify(await lookupAnswers(QUESTIONS))));
    expect(answers.contentTypes[0]).toBe('text/html; charset=utf-8');
    expect(answers.detected).toEqual([
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
