/**
 * No network in these tests: `globalThis.fetch` refuses every host but loopback. The adapter's fetch resolves
 * `globalThis.fetch` per call, so the refusal reaches it.
 */
const allowed = (host: string) => host === '127.0.0.1' || host === 'localhost' || host === '[::1]'
const marker = Symbol.for('bridle.llm-anthropic.tests.loopbackOnly')
const scope = globalThis as typeof globalThis & { [marker]?: true }

if (scope[marker] !== true) {
  const original = globalThis.fetch
  globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const host = new URL(href).hostname
    return allowed(host) ? original(input, init) : Promise.reject(new Error(`no network in tests: ${host}`))
  }) as typeof fetch
  scope[marker] = true
}
