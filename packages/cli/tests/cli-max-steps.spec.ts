import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { bridle, DEMO_YAML, makeApp, sessionIdOf } from './helpers.js'

/** A scripted model that reads package.json at every step: ten tool-call steps, never an answer. */
const RUNAWAY = `scripted:
  turns:
    - steps:
${'        - toolCalls: [{ name: read_file, arguments: { path: package.json } }]\n'.repeat(10)}`

const turnEnds = (app: string, id: string) =>
  readFileSync(join(app, 'sessions', `${id}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line))
    .filter((event) => event.type === 'turn/end')
    .map((event) => event.data.reason)

describe('the step cap (maxSteps) in the CLI', () => {
  it('--max-steps stops a model that calls a tool at every step; the log, inspect and the viewer name the reason', async () => {
    const app = makeApp(`${DEMO_YAML}${RUNAWAY}`)
    const out = await bridle(['run', '--max-steps', '3', 'loop'], app)
    expect(out.code).toBe(1)
    expect(out.stderr).toContain(
      'bridle: the turn ended max-steps: it took 3 steps, its cap, and the model still wanted another ' +
        '(raise it with --max-steps or agent.maxSteps in bridle.yaml)',
    )
    expect(out.stdout.match(/→ read_file/g)).toHaveLength(3)
    const id = sessionIdOf(out.stderr)
    expect(turnEnds(app, id)).toEqual([{ kind: 'max-steps', steps: 3 }])

    const shown = await bridle(['inspect', id], app)
    expect(shown.stdout).toMatch(/^turn 1 \(seq \d+\) max-steps \(stopped at its cap of 3 steps\)$/m)
    const json = JSON.parse((await bridle(['inspect', id, '--json'], app)).stdout)
    expect(json.turns[0].end.reason).toEqual({ kind: 'max-steps', steps: 3 })

    const page = join(app, 'session.html')
    expect((await bridle(['inspect', id, '--html', page], app)).code).toBe(0)
    expect(readFileSync(page, 'utf8')).toContain('max-steps (stopped at its cap of 3 steps)')
  })

  it('reads agent.maxSteps from bridle.yaml; the flag wins over it', async () => {
    const app = makeApp(`${DEMO_YAML.replace('agent:\n', 'agent:\n  maxSteps: 2\n')}${RUNAWAY}`)
    const fromYaml = await bridle(['run', 'loop'], app)
    expect(turnEnds(app, sessionIdOf(fromYaml.stderr))).toEqual([{ kind: 'max-steps', steps: 2 }])
    const fromFlag = await bridle(['run', '--max-steps', '4', 'loop'], app)
    expect(turnEnds(app, sessionIdOf(fromFlag.stderr))).toEqual([{ kind: 'max-steps', steps: 4 }])
  })

  it('refuses a --max-steps that is not a positive integer (exit 2, before any model call)', async () => {
    const app = makeApp(DEMO_YAML)
    for (const bad of ['0', 'x', '2.5']) {
      const out = await bridle(['run', '--max-steps', bad, 'hi'], app)
      expect(out.code).toBe(2)
      expect(out.stderr).toBe(`bridle: --max-steps: expected a positive integer, got "${bad}"\n`)
    }
  })
})
