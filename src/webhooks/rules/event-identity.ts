/** A JSON text re-serialised, so that a retry may differ in whitespace; any other text as is. */
function canonical(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

/**
 * Whether a call with an event's Idempotency-Key is a retry of that event: the same payload up to
 * JSON whitespace. An event erased since (LGPD: payload and headers emptied) counts as the same, so
 * a retry neither brings the person back nor keeps their body as a refused call.
 */
export function sameEvent(
  first: { payload: string; headers: Record<string, string> },
  payload: string,
): boolean {
  if (Object.keys(first.headers).length === 0) return true;
  return canonical(first.payload) === canonical(payload);
}
