/**
 * `bridle` exits only after its output has gone out: a reader slower than the command (a pipe into `jq`, `less`)
 * still gets every byte, where `process.exit()` alone dropped what the pipe's buffer could not take yet.
 */
import { spawn } from 'node:child_process'
import { Writable } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { startMockServer, textEvents, type MockServer } from '@bridle/llm-openai/testing'
import { exitWhenFlushed } from '../src/exit.js'
import { BIN, DEMO_YAML, makeApp, offlineEnv } from './helpers.js'

describe('exitWhenFlushed', () => {
  it('exits after every write queued before it has been written, on each output', async () => {
    const written: string[] = []
    // a slow output: each chunk goes out a few turns of the event loop after it was written
    const slow = () =>
      new Writable({
        highWaterMark: 1,
        write(chunk, _encoding, done) {
          setImmediate(() => setImmediate(() => (String(chunk) && written.push(String(chunk)), done())))
        },
      })
    const [out, err] = [slow(), slow()]
    for (let i = 0; i < 5; i++) out.write(`out ${i};`), err.write(`err ${i};`)
    const exits: [number, number][] = []
    await exitWhenFlushed(3, [out, err], (code) => exits.push([code, written.length]))
    expect(exits).toEqual([[3, 10]]) // the ten chunks; the empty writes it adds are not counted
  })

  it('an output whose reader is gone counts as flushed', async () => {
    const closed = new Writable({ write: (_chunk, _encoding, done) => done(new Error('EPIPE')) })
    closed.on('error', () => undefined)
    const exits: number[] = []
    await exitWhenFlushed(0, [closed], (code) => exits.push(code))
    expect(exits).toEqual([0])
  })
})

describe('a reader slower than the command', () => {
  let server: MockServer | undefined
  afterEach(async () => server?.close())

  it('gets the whole answer of `bridle run`, though the command was over before it read a byte', async () => {
    const pieces = Array.from({ length: 400 }, (_, i) => `${String(i).padStart(4, '0')}${'x'.repeat(996)}`)
    server = await startMockServer([{ kind: 'sse', events: textEvents(pieces) }])
    const child = spawn(process.execPath, [BIN, 'run', 'hello'], {
      cwd: makeApp(DEMO_YAML),
      env: offlineEnv({ BRIDLE_BASE_URL: server.url, BRIDLE_MODEL: 'mock' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.pause()
    child.stdout.on('data', (d) => (stdout += d))
    // Read nothing until the command printed its session id, its last line, after the whole answer: 400 KB, twice
    // what a pipe holds, so most of it waits in the command's own queue.
    child.stderr.on('data', (d) => {
      stderr += d
      if (/^bridle: session \S+$/m.test(stderr)) child.stdout.resume()
    })
    const code = await new Promise((resolve) => child.on('close', resolve))
    expect(code).toBe(0)
    expect(stdout).toContain(pieces.join(''))
  })
})
