// The Content-Disposition of a file download, served by the API or signed into a presigned URL:
// an ASCII `filename` every client understands plus the exact name as RFC 8187 `filename*`.

/** `attachment; filename="r_sum_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf` */
export function contentDisposition(kind: 'inline' | 'attachment', filename: string): string {
  // Quotes, backslashes, control and non-ASCII characters cannot appear in the quoted fallback.
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  // RFC 8187's attr-char: what may stay unescaped in `filename*`.
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
