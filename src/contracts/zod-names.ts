/**
 * Every export of zod but three, for src/contracts/zod.ts (why: there): `core` and `locales` hold
 * zod's 47 error-message locales, and `z` is zod's whole namespace again.
 */
export * from 'zod/v4';
export const core = undefined;
export const locales = undefined;
export const z = undefined;
