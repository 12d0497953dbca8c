/**
 * `bridle export ID --otlp [URL] | --json FILE`: a stored session as OpenTelemetry spans, sent over OTLP/HTTP to a
 * loopback receiver and written as an OTLP/JSON file, both decoded in the collector's JSON format; the two carry the
 * same spans, at the times the log recorded. Errors follow the CLI's grammar and exit codes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeOtlpJson, startReceiver, withoutIds, type Receiver } from '../../../plugins/otel/tests/otlp-receiver.js'
import { bridle, DEMO_YAML, makeApp, offlineEnv, sessionIdOf } from './helpers.js'

let app: string
let id: string
let receiver: Receiver

beforeAll(async () => {
  receiver = await startReceiver()
  app = makeApp(DEMO_YAML)
  const run = await bridle(['run', 'What is the package name of this project?'], app)
  expect(run.code, run.stderr).toBe(0)
  id = sessionIdOf(run.stderr)
})
afterAll(async () => {
  await receiver.close()
})

/** The stored events of the session (the JSONL lines after the header). */
function storedEvents(): { type: string; time: number; data: any }[] {
  const text = readFileSync(join(app, 'sessions', `${id}.jsonl`), 'utf8')
  return text
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line))
}

describe('bridle export', () => {
  it('--json FILE and --otlp URL carry the same spans, with the times of the log', async () => {
    const json = await bridle(['export', id, '--json', 'spans.json'], app)
    expect(json.code, json.stderr).toBe(0)
    expect(json.stdout).toBe('')
    expect(json.stderr).toBe(`bridle: wrote 4 spans (1 turn) of session ${id} to spans.json\n`)
    const fromFile = decodeOtlpJson(readFileSync(join(app, 'spans.json'), 'utf8'))

    const sent = await bridle(['export', id, '--otlp', receiver.url], app)
    expect(sent.code, sent.stderr).toBe(0)
    expect(sent.stderr).toBe(`bridle: exported 4 spans (1 turn) of session ${id} to ${receiver.url}/v1/traces\n`)
    expect(receiver.requests.map((r) => [r.method, r.path, r.headers['content-type']])).toEqual([
      ['POST', '/v1/traces', 'application/json'],
    ])
    const fromWire = decodeOtlpJson(receiver.requests[0]!.body)
    expect(withoutIds(fromWire)).toEqual(withoutIds(fromFile))

    // the scripted demo: read_file, then the answer
    expect(fromWire.map((s) => [s.name, s.kind])).toEqual([
      ['chat scripted-demo', 'client'],
      ['execute_tool read_file', 'internal'],
      ['chat scripted-demo', 'client'],
      ['invoke_agent', 'internal'],
    ])
    const events = storedEvents()
    const turnStart = events.find((e) => e.type === 'turn/start')!
    const turnEnd = events.find((e) => e.type === 'turn/end')!
    const call = events.find((e) => e.type === 'tool/call')!
    const result = events.find((e) => e.type === 'tool/result')!
    expect([fromWire[3]!.start, fromWire[3]!.end]).toEqual([turnStart.time, turnEnd.time])
    expect([fromWire[1]!.start, fromWire[1]!.end]).toEqual([call.time, result.time])
    expect(fromWire[3]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.conversation.id': id,
      'bridle.turn.end_reason': 'completed',
    })
    expect(fromWire[2]!.attributes).toMatchObject({
      'gen_ai.provider.name': 'scripted',
      'bridle.request.sections': expect.arrayContaining(['deployment:persona']),
      'bridle.cache.break': 'none',
    })
    expect(fromWire[0]!.resource['service.name']).toBe('bridle')
    // contents only when asked
    expect(JSON.stringify(fromWire)).not.toContain('gen_ai.input.messages')
  })

  it('--otlp without a URL uses the OTEL_EXPORTER_OTLP_* endpoint; --content adds the contents', async () => {
    const before = receiver.requests.length
    const env = offlineEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'from-env' })
    const out = await bridle(['export', id, '--otlp', '--content'], app, env)
    expect(out.code, out.stderr).toBe(0)
    const spans = decodeOtlpJson(receiver.requests[before]!.body)
    expect(spans[0]!.resource['service.name']).toBe('from-env')
    const input = JSON.parse(spans[0]!.attributes['gen_ai.input.messages'] as string)
    expect(input[0]).toMatchObject({ role: 'user' })
  })

  it('--json - writes the request to stdout', async () => {
    const out = await bridle(['export', id, '--json', '-'], app)
    expect(out.code, out.stderr).toBe(0)
    expect(decodeOtlpJson(out.stdout)).toHaveLength(4)
  })

  it('errors: usage (exit 2), a missing session or a refusing receiver (exit 1), and no file left behind', async () => {
    const none = await bridle(['export', id], app)
    expect([none.code, none.stderr]).toEqual([2, 'bridle: export needs --otlp [URL] or --json FILE (or both)\n'])
    const ftp = await bridle(['export', id, '--otlp', 'ftp://example.test'], app)
    expect([ftp.code, ftp.stderr]).toEqual([2, 'bridle: --otlp: "ftp://example.test" is not an http: or https: URL\n'])
    const bad = await bridle(['export', id, '--otlp', 'not a url'], app)
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'bridle: --otlp: "not a url" is not a URL (e.g. http://localhost:4318)\n',
    ])
    const missing = await bridle(['export', 'nope', '--json', 'nope.json'], app)
    expect([missing.code, missing.stderr]).toEqual([
      1,
      'bridle: session "nope" not found (bridle sessions lists the stored ones)\n',
    ])
    expect(existsSync(join(app, 'nope.json'))).toBe(false)

    receiver.status = 400
    try {
      const refused = await bridle(['export', id, '--otlp', receiver.url], app)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toMatch(new RegExp(`^bridle: could not export to ${receiver.url}/v1/traces: .+\\n$`))
    } finally {
      receiver.status = 200
    }
    const noDir = await bridle(['export', id, '--json', join('no-such-dir', 'spans.json')], app)
    // checked before the session is read: a usage error naming the flag, the path as typed and the missing folder
    expect(noDir.code).toBe(2)
    expect(noDir.stderr).toBe(
      `bridle: --json no-such-dir/spans.json: the folder ${join(app, 'no-such-dir')} does not exist (create the folder first, or name a file in one that exists)\n`,
    )
    expect(readdirSync(app).filter((f) => f.endsWith('.tmp'))).toEqual([])
  })
})
