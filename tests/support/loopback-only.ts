/**
 * No network in the adapters' tests: `globalThis.fetch` refuses every host but loopback. The adapters' fetch resolves
 * `globalThis.fetch` per call, so the refusal reaches them. A package's `tests/setup.ts` imports this first.
 */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])
const guarded = Symbol.for('bridle.tests.loopbackOnly')
const scope = globalThis as typeof globalThis & { [guarded]?: true }

if (scope[guarded] !== true) {
  const realFetch = globalThis.fetch
  globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
    if (!LOOPBACK.has(url.hostname)) throw new Error(`test network guard: refused request to ${url.host}`)
    return realFetch(input, init)
  }) as typeof fetch
  scope[guarded] = true
}
