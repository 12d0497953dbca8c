/**
 * No-network guard: every spec imports this first. `globalThis.fetch` rejects any URL
 * whose host is not loopback; the adapter resolves `globalThis.fetch` per call, so this applies.
 */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])
const guarded = Symbol.for('bridle.llm-openai.tests.fetchGuard')
const g = globalThis as typeof globalThis & { [guarded]?: true }

if (g[guarded] !== true) {
  const realFetch = globalThis.fetch
  globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
    if (!LOOPBACK.has(url.hostname)) throw new Error(`test network guard: refused request to ${url.host}`)
    return realFetch(input, init)
  }) as typeof fetch
  g[guarded] = true
}
