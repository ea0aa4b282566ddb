// The Content-Disposition of a file download, served by the API or signed into a presigned URL:
// an ASCII `filename` every client understands plus the exact name as RFC 8187 `filename*`.

/** RFC 8187's attr-char: what may stay unescaped in `filename*`. */
function encodeExtValue(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function contentDisposition(filename: string, options: { attachment: boolean }): string {
  // Quotes, backslashes, control and non-ASCII characters cannot appear in the quoted fallback.
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${options.attachment ? 'attachment' : 'inline'}; filename="${fallback}"; filename*=UTF-8''${encodeExtValue(filename)}`;
}
