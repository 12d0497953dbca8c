/**
 * The root README's "In code" example, run as a newcomer would (only the model swapped for the scripted one): a real
 * child process runs one turn and simply ends — no dispose(), no kill. Its session log must hold the complete turn
 * and verify (`bridle inspect --verify`), and running it a second time must start a new session instead of
 * colliding with the first log.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { exampleFromReadme, scriptedExample } from '../scripts/rehearsal/consumer.mjs'

const repo = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(repo, 'packages/cli/dist/bin.js')
// The app folder resolves @bridle/* and cordis through the CLI package's dependencies (built dist/, as published).
const app = mkdtempSync(join(tmpdir(), 'bridle-readme-example-'))
symlinkSync(join(repo, 'packages/cli/node_modules'), join(app, 'node_modules'))
writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'readme-example-app', private: true, type: 'module' }))
writeFileSync(
  join(app, 'example.mjs'),
  scriptedExample(exampleFromReadme(readFileSync(join(repo, 'README.md'), 'utf8'))),
)
afterAll(() => rmSync(app, { recursive: true, force: true }))

function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env }
    for (const key of ['DEEPSEEK_API_KEY', 'BRIDLE_BASE_URL', 'BRIDLE_MODEL']) delete env[key]
    const child = spawn(process.execPath, args, { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, out, err }))
  })
}

function storedEvents(id: string): { type: string; data: Record<string, unknown> }[] {
  const lines = readFileSync(join(app, '.bridle/sessions', `${id}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
  return lines.slice(1).map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> })
}

describe('the README "In code" example, in a child process that exits without dispose()', () => {
  it('prints the answer, and its log holds the complete turn and verifies; a second run gets a new session', async () => {
    const ids: string[] = []
    for (const round of [1, 2]) {
      const { code, out, err } = await run(['example.mjs'])
      expect(err).toBe('')
      expect(code).toBe(0)
      expect(out).toContain('The package is named readme-example-app.')
      const id = /\[session (\S+): turn 1 ended: completed\]/.exec(out)?.[1]
      expect(id, `run ${round} printed no completed turn:\n${out}`).toBeDefined()
      ids.push(id!)

      // The last events were still in the write-behind window when the script ended; beforeExit wrote them.
      const events = storedEvents(id!)
      expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } })
      expect(events.filter((event) => event.type === 'assistant/message')).toHaveLength(2)

      const verify = await run([BIN, 'inspect', id!, '--verify'])
      expect(verify.code, verify.out + verify.err).toBe(0)
      expect(verify.out).toContain('verification passed: 2 requests match their digests')
    }
    expect(ids).toEqual(['session-1', 'session-2'])
  }, 180_000) // four real Node processes; slow on a shared 2-core machine
})
