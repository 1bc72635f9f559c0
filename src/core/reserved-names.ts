/**
 * Keys and paths that come from outside (a sender's body, a configuration, a form, a template)
 * become property names in this isolate, which serves every account. These three names reach an
 * object's prototype instead of the object (`o.__proto__.x = 1` sets `Object.prototype.x` for all),
 * so none of them is ever taken as a segment of a key or path from outside.
 */
export const RESERVED_SEGMENTS: readonly string[] = ['__proto__', 'prototype', 'constructor'];
