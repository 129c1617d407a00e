// A module-resolution hook for Node processes that load server modules without `--conditions=react-server` (the
// `signet` binary, which users and tests start as plain `node bin/cli/signet.mjs`): `server-only` resolves under the
// react-server condition, to its empty module, as in Next's server bundles. Nothing else changes.
export async function resolve(specifier, context, nextResolve) {
  if (specifier !== "server-only") return nextResolve(specifier, context);
  return nextResolve(specifier, { ...context, conditions: [...context.conditions, "react-server"] });
}
