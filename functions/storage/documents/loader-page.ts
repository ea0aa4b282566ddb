// The intermediate page a browser lands on from `/view/` or `/edit/` without `Accept:
// application/json`: it redeems the ticket in its URL fragment in the background (a POST the page
// makes, so link previewers and prefetchers that only GET never trigger a grant), then replaces
// itself with the document. A strict Content-Security-Policy lets only its own nonce'd script run.
import { randomBytes } from 'node:crypto';
import { reply, type HttpReply } from '#shared/http/reply.ts';

/** The page served for `grantPath`, the endpoint that redeems tickets. */
export function loaderPage(grantPath: string): HttpReply {
  const nonce = randomBytes(16).toString('base64');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Opening document…</title>
<style nonce="${nonce}">body{font:16px system-ui,sans-serif;margin:4rem auto;max-width:32rem;text-align:center;color:#333}</style>
</head>
<body>
<p id="status">Opening the document…</p>
<script nonce="${nonce}">
(function () {
  var status = document.getElementById('status');
  var ticket = new URLSearchParams(location.hash.slice(1)).get('ticket');
  history.replaceState(null, '', location.pathname);
  if (!ticket) { status.textContent = 'This link is incomplete. Open the document again from the application.'; return; }
  fetch(${JSON.stringify(grantPath)}, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Accept': 'application/json' },
    credentials: 'omit',
    body: JSON.stringify({ ticket: ticket })
  }).then(function (response) {
    return response.json().then(function (body) {
      if (!response.ok || !body.data || !body.data.url) throw new Error(body.message || 'The document could not be opened.');
      location.replace(body.data.url);
    });
  }).catch(function (error) {
    status.textContent = error.message + ' Open the document again from the application.';
  });
})();
</script>
</body>
</html>
`;
  return reply(200, Buffer.from(html, 'utf8'), {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
  });
}

/** Where `/view/` and `/edit/` send a browser: the loader, with the ticket in the fragment. */
export function loaderLocation(origin: string, loaderPath: string, ticket: string): string {
  return `${origin}${loaderPath}#ticket=${encodeURIComponent(ticket)}`;
}
