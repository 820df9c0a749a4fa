/**
 * A gateway measured in turns sits idle while the other targets run, often past the API's 20 s idle
 * timeout (db/postgres-driver.ts): its pool then closes and reopens all its connections within the
 * measurement, and fresh backends cost the database more per answer for a while. The baselines'
 * pools never close (idle timeout 0), and a Lambda under steady load never idles that long. So
 * every gateway's `postgres` is the one of postgres.mjs, which keeps idle connections open too.
 * A hook rather than a setting: a baseline's tree is older code, which takes no new setting.
 */
const WRAPPER = new URL('./postgres.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if (specifier !== 'postgres' || context.parentURL?.startsWith(WRAPPER)) return next(specifier, context);
  const real = await next(specifier, context);
  return { url: `${WRAPPER}?real=${encodeURIComponent(real.url)}`, shortCircuit: true };
}
