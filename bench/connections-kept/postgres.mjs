// The tree's own postgres.js (hooks.mjs), with idle connections kept open.
const real = (await import(new URL(import.meta.url).searchParams.get('real'))).default;

function postgres(url, options) {
  return typeof url === 'object'
    ? real({ ...url, idle_timeout: 0 })
    : real(url, { ...options, idle_timeout: 0 });
}

export default Object.assign(postgres, real);
