// The files of the two explorer pages: the vendors' bundles (from swagger-ui-dist and redoc), our
// pages and the scripts that start them. Every script is a file of its own, so the pages run under
// a Content-Security-Policy without 'unsafe-inline' for scripts; nothing is fetched from a CDN.
// Deployed, the vendor files are copied beside the Lambda's index.mjs (`EXPLORER_VENDOR_FILES`, read
// by the CDK bundling); locally they are read from node_modules.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** Folder beside the bundle's index.mjs that holds the vendor files. */
const BUNDLED_FOLDER = 'explorer';

export interface ExplorerFile {
  contentType: string;
  /** A vendor file: its path in the repository (node_modules/...). */
  vendorPath?: string;
  /** One of ours, small enough to live in this module. */
  text?: string;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/**
 * Styles may be inline (Redoc's styled-components and Swagger UI's React write style elements and
 * attributes); scripts only from this host; the pages fetch only this host's document; Redoc's
 * search runs in a worker made from a blob.
 */
export const EXPLORER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SCHEMA_URL = '/api/schema/';

function page(title: string, head: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${head}
</head>
<body>
${body}
</body>
</html>
`;
}

export const SWAGGER_PAGE = page(
  'Tessera API explorer',
  '<link rel="stylesheet" href="/api/docs/swagger-ui.css">',
  '<div id="swagger-ui"></div>\n<script src="/api/docs/swagger-ui-bundle.js"></script>\n<script src="/api/docs/swagger-init.js"></script>',
);

export const REDOC_PAGE = page(
  'Tessera API reference',
  '',
  '<div id="redoc"></div>\n<script src="/api/redoc/redoc.standalone.js"></script>\n<script src="/api/redoc/redoc-init.js"></script>',
);

// validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io.
const SWAGGER_INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '${SCHEMA_URL}', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });
});
`;

const REDOC_INIT = `window.addEventListener('load', function () {
  Redoc.init('${SCHEMA_URL}', { hideDownloadButton: false }, document.getElementById('redoc'));
});
`;

/** The files each page serves under its own path (`/api/docs/<name>`, `/api/redoc/<name>`). */
export const EXPLORER_FILES: Record<'docs' | 'redoc', Record<string, ExplorerFile>> = {
  docs: {
    'swagger-ui-bundle.js': { contentType: JS, vendorPath: 'node_modules/swagger-ui-dist/swagger-ui-bundle.js' },
    'swagger-ui.css': { contentType: CSS, vendorPath: 'node_modules/swagger-ui-dist/swagger-ui.css' },
    'swagger-init.js': { contentType: JS, text: SWAGGER_INIT },
  },
  redoc: {
    'redoc.standalone.js': { contentType: JS, vendorPath: 'node_modules/redoc/bundles/redoc.standalone.js' },
    'redoc-init.js': { contentType: JS, text: REDOC_INIT },
  },
};

function vendorFiles(): Array<{ from: string; name: string }> {
  return Object.values(EXPLORER_FILES).flatMap((files) =>
    Object.entries(files).flatMap(([name, file]) => (file.vendorPath === undefined ? [] : [{ from: file.vendorPath, name }])),
  );
}

/** What the docs Lambda's bundling copies beside index.mjs: `{from: repository path, to: bundle path}`. */
export const EXPLORER_VENDOR_FILES: ReadonlyArray<{ from: string; to: string }> = vendorFiles().map(({ from, name }) => ({
  from,
  to: `${BUNDLED_FOLDER}/${name}`,
}));

const cache = new Map<string, Promise<Buffer>>();

/** Beside the bundle when deployed, else in the repository's node_modules (dev server, tests). */
function vendorLocation(name: string, vendorPath: string): string {
  const bundled = fileURLToPath(new URL(`./${BUNDLED_FOLDER}/${name}`, import.meta.url));
  if (existsSync(bundled)) return bundled;
  return fileURLToPath(new URL(`../../${vendorPath}`, import.meta.url));
}

/** A file's bytes, read once per process. */
export function explorerFileBytes(name: string, file: ExplorerFile): Promise<Buffer> {
  if (file.text !== undefined) return Promise.resolve(Buffer.from(file.text));
  let bytes = cache.get(name);
  if (bytes === undefined) {
    bytes = readFile(vendorLocation(name, file.vendorPath!));
    bytes.catch(() => cache.delete(name));
    cache.set(name, bytes);
  }
  return bytes;
}
