/** base64url without padding, for keys and cursors that travel in headers and query strings. */
export function toBase64url(bytes: Uint8Array): string {
  // One string built by a loop: Array.from + join made an array and a string per byte (a list's
  // cursor is written on every page).
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i] as number);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Printable ASCII (JSON writes the control characters as escapes): its own UTF-8. */
const PRINTABLE = /^[ -~]*$/;
const encoder = new TextEncoder();

/** `toBase64url` of the UTF-8 of `text`, without encoding it when it is printable ASCII (a cursor, mostly). */
export const textToBase64url = (text: string): string =>
  PRINTABLE.test(text)
    ? btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
    : toBase64url(encoder.encode(text));

/** Throws on characters outside the alphabet. */
export function fromBase64url(text: string): Uint8Array {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
