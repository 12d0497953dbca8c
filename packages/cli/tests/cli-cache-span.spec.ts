import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { bridle, DEMO_YAML, makeApp, sessionIdOf } from './helpers.js'

const PERSONA = 'You answer questions about the project in your working directory. Read files before answering.'

describe('inspect --cache shows the change it reports', () => {
  it('a sentence appended to a long persona line: both sides differ, around the changed words, never mid-word', async () => {
    const app = makeApp(DEMO_YAML.replace(/persona: .*/, `persona: "${PERSONA}"`))
    const id = sessionIdOf((await bridle(['run', 'hello'], app)).stderr)
    const yaml = join(app, 'bridle.yaml')
    writeFileSync(yaml, readFileSync(yaml, 'utf8').replace(PERSONA, `${PERSONA} Be brief.`))
    expect((await bridle(['run', '-s', id, 'again'], app)).code).toBe(0)

    const out = await bridle(['inspect', id, '--cache'], app)
    expect(out.code, out.stderr).toBe(0)
    const row = out.stdout.split('\n').find((line) => line.startsWith('  turn 2 step 1:'))!
    const [, previous, current] = /"([^"]*)" → "([^"]*)"/.exec(row)!
    expect(row).toContain('section deployment:persona changed')
    expect(previous).toBe('…Read files before answering.')
    expect(current).toBe('…Read files before answering. Be brief.')
  })
})
