// The CloudFront Function (JavaScript runtime 2.0) in front of the builds bucket: it reads the
// host → active build mapping from the KeyValueStore and rewrites the request to the build's file,
// with the same key layout as shared/hosting/build-keys.ts (plain segments as they are, others as
// `--` and their UTF-8 hex). A path without an extension is a client-side route: index.html.
// Unlike the dev server, the edge cannot look whether such a path is a file, so extensionless files
// are not served here. Unknown hosts and paths leading outside the build answer 404.

/** The function's source; `kvsId` is the KeyValueStore's id (a CDK token is fine). */
export function edgeHostRouterCode(kvsId: string): string {
  return `import cf from 'cloudfront';
const kvs = cf.kvs('${kvsId}');
const PLAIN = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const NOT_FOUND = { statusCode: 404, statusDescription: 'Not Found' };
function hex(text) {
  const escaped = encodeURIComponent(text);
  let out = '';
  for (let i = 0; i < escaped.length; i += 1) {
    if (escaped[i] === '%') { out += escaped.substr(i + 1, 2).toLowerCase(); i += 2; }
    else out += escaped.charCodeAt(i).toString(16);
  }
  return out;
}
function encodeSegment(segment) {
  return PLAIN.test(segment) && segment.indexOf('--') !== 0 ? segment : '--' + hex(segment);
}
async function handler(event) {
  const request = event.request;
  const host = ((request.headers.host && request.headers.host.value) || '').toLowerCase();
  let prefix;
  try { prefix = await kvs.get(host); } catch (e) { return NOT_FOUND; }
  let path;
  try { path = decodeURIComponent(request.uri); } catch (e) { return NOT_FOUND; }
  if (path.indexOf('\\\\') >= 0 || /[\\u0000-\\u001f\\u007f]/.test(path)) return NOT_FOUND;
  let segments = path.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.indexOf('..') >= 0) return NOT_FOUND;
  if (path.endsWith('/') || segments.length === 0) segments.push('index.html');
  else if (segments[segments.length - 1].indexOf('.') < 0) segments = ['index.html'];
  request.uri = '/' + prefix + '/' + segments.map(encodeSegment).join('/');
  return request;
}
`;
}
