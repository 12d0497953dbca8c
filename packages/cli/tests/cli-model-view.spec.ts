import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { bridle, DEMO_YAML, makeApp, sessionIdOf } from './helpers.js'

const QUESTION = 'What is the package name of this project?'

interface Row {
  turn: number
  step: number
  digest: string
  model: { request: string; system: string; tools: string; messages: string; config: string }
}

async function requestsOf(app: string, id: string): Promise<Row[]> {
  const out = await bridle(['inspect', id, '--json'], app)
  expect(out.code).toBe(0)
  return JSON.parse(out.stdout).requests
}

describe('inspect --json: model-view digests compare requests across sessions', () => {
  it('gives the same model digest to the same request in two sessions, whose recorded digests differ (ids)', async () => {
    const app = makeApp(DEMO_YAML)
    const a = sessionIdOf((await bridle(['run', QUESTION], app)).stderr)
    const b = sessionIdOf((await bridle(['run', QUESTION], app)).stderr)
    const [first, second] = [await requestsOf(app, a), await requestsOf(app, b)]
    expect(first.map((r) => [r.turn, r.step])).toEqual([
      [1, 1],
      [1, 2],
    ])
    for (let i = 0; i < first.length; i++) {
      expect(second[i]!.model).toEqual(first[i]!.model)
      // the recorded digest covers message ids, minted per session
      expect(second[i]!.digest).not.toBe(first[i]!.digest)
    }
  })

  it('tells which part differs when the requests do', async () => {
    const app = makeApp(DEMO_YAML)
    const [a] = await requestsOf(app, sessionIdOf((await bridle(['run', QUESTION], app)).stderr))
    writeFileSync(join(app, 'bridle.yaml'), DEMO_YAML.replace('You answer questions', 'You answer short questions'))
    const [b] = await requestsOf(app, sessionIdOf((await bridle(['run', QUESTION], app)).stderr))
    expect(b!.model.system).not.toBe(a!.model.system)
    expect(b!.model.request).not.toBe(a!.model.request)
    expect([b!.model.tools, b!.model.messages, b!.model.config]).toEqual([
      a!.model.tools,
      a!.model.messages,
      a!.model.config,
    ])
  })
})
