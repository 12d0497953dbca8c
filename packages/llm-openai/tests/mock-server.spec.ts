import './setup.js'
import { afterEach, describe, expect, it } from 'vitest'
import { DONE, KEEPALIVE, encodeSseItem, startMockServer, type MockServer } from '../src/testing.js'

let server: MockServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('mock server', () => {
  it('encodes SSE items: strings and objects as data lines, raw verbatim', () => {
    expect(encodeSseItem(DONE)).toBe('data: [DONE]\n\n')
    expect(encodeSseItem({ a: 1 })).toBe('data: {"a":1}\n\n')
    expect(encodeSseItem(KEEPALIVE)).toBe(': keep-alive\n\n')
    expect(encodeSseItem({ raw: 'data: x' })).toBe('data: x')
  })

  it('records method, path, lower-case headers, raw and parsed bodies; plays behaviours FIFO', async () => {
    server = await startMockServer([{ kind: 'sse', events: ['one', DONE] }])
    server.push({
      kind: 'http-error',
      status: 418,
      body: 'teapot',
      contentType: 'text/plain',
      headers: { 'x-request-id': 'r1' },
    })
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const first = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'X-Custom': 'Yes', 'content-type': 'application/json' },
      body: '{"k":[1]}',
    })
    expect(first.headers.get('content-type')).toBe('text/event-stream')
    expect(await first.text()).toBe('data: one\n\ndata: [DONE]\n\n')
    const second = await fetch(`${server.url}/other?q=1`, { method: 'PUT', body: 'not json' })
    expect(second.status).toBe(418)
    expect(second.headers.get('x-request-id')).toBe('r1')
    expect(await second.text()).toBe('teapot')
    expect(server.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/chat/completions', { k: [1] }],
      ['PUT', '/other?q=1', 'not json'],
    ])
    expect(server.requests[0]!.headers['x-custom']).toBe('Yes')
    expect(server.requests[0]!.rawBody).toBe('{"k":[1]}')
    expect(server.remaining()).toBe(0)
  })

  it('an exhausted script answers 500 and counts the request as unexpected', async () => {
    server = await startMockServer()
    const response = await fetch(`${server.url}/chat/completions`, { method: 'POST', body: '{}' })
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ error: { message: 'mock script exhausted', type: 'mock_error' } })
    expect(server.unexpected).toBe(1)
  })

  it('once the script is exhausted, `respond` answers each request from the request itself', async () => {
    server = await startMockServer([{ kind: 'sse', events: ['scripted', DONE] }], {
      respond: (request) => {
        const n = (request.body as { n: number }).n
        if (n < 0) throw new Error('negative')
        return { kind: 'sse', events: [{ double: n * 2 }, DONE] }
      },
    })
    const post = (body: string) =>
      fetch(`${server!.url}/chat/completions`, { method: 'POST', body }).then((r) => r.text())
    expect(await post('{"n":1}')).toBe('data: scripted\n\ndata: [DONE]\n\n')
    expect(await post('{"n":2}')).toBe('data: {"double":4}\n\ndata: [DONE]\n\n')
    expect(await post('{"n":3}')).toBe('data: {"double":6}\n\ndata: [DONE]\n\n')
    const failed = await fetch(`${server.url}/chat/completions`, { method: 'POST', body: '{"n":-1}' })
    expect(failed.status).toBe(500)
    expect(await failed.json()).toEqual({
      error: { message: 'mock responder threw: Error: negative', type: 'mock_error' },
    })
    expect(server.unexpected).toBe(0)
    expect(server.requests).toHaveLength(4)
  })

  it('waitForRequests rejects with a clear message when requests do not arrive', async () => {
    server = await startMockServer()
    await expect(server.waitForRequests(1, 30)).rejects.toThrow('mock server: expected 1 request(s), got 0 within 30ms')
  })

  it('close() drops a hanging connection, resolves `disconnected`, and is idempotent', async () => {
    server = await startMockServer([{ kind: 'hang' }])
    const pending = fetch(`${server.url}/chat/completions`, { method: 'POST', body: '{}' }).catch((e: unknown) => e)
    await server.waitForRequests(1)
    const closing = server.close()
    expect(server.close()).toBe(closing)
    await closing
    expect(await pending).toBeInstanceOf(Error)
    await server.requests[0]!.disconnected
  })
})
