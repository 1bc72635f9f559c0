/**
 * An environment variable (a Worker var or secret) read as an own property only: `env` is an
 * ordinary object, so a plain `env.ADMIN_TOKEN` would read a value planted on Object.prototype.
 */
export function ownVar<E extends object, K extends keyof E & string>(env: E, name: K): E[K] | undefined {
  return Object.hasOwn(env, name) ? env[name] : undefined;
}
