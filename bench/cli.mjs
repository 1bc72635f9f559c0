// The refusals of the project's scripts: a bad option prints why and the usage, and exits 2.

/** @param {string} usage */
export function refusals(usage) {
  /** @param {string} message @returns {never} */
  function fail(message) {
    console.error(`${message}\n\n${usage}`);
    process.exit(2);
  }
  /** @param {string} name @param {string | undefined} value */
  function positive(name, value) {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) fail(`--${name} takes a positive integer, not "${value}".`);
    return n;
  }
  return { fail, positive };
}
