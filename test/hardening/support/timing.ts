/** The answer, and how long it took; `undefined` when it did not come within `ms` (a hang). */
export async function within<T>(ms: number, work: Promise<T>): Promise<{ value?: T; ms: number }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((done) => {
    timer = setTimeout(() => done(undefined), ms);
  });
  try {
    const value = await Promise.race([work, timeout]);
    return { value, ms: Math.round(performance.now() - started) };
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
