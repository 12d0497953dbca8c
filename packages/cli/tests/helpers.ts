import { spawn } from 'node:child_process'
import { cpSync, mkdtempSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The built binary; `pnpm test` builds before it runs the tests. */
export const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url))
const SAMPLE = fileURLToPath(new URL('../../../examples/demo/sample-project', import.meta.url))

export interface Finished {
  code: number | null
  stdout: string
  stderr: string
}

/** Environment without any model configuration, so tests never reach a real endpoint. */
export function offlineEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' }
  for (const key of ['DEEPSEEK_API_KEY', 'BRIDLE_BASE_URL', 'BRIDLE_MODEL', 'BRIDLE_API_KEY', 'BRIDLE_CONTEXT_WINDOW']) delete env[key]
  return { ...env, ...extra }
}

/** Runs `bridle ARGS` in `cwd` and collects its output. */
export function bridle(args: string[], cwd: string, env = offlineEnv()): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** A throwaway app folder: a copy of the demo sample project and a bridle.yaml with sessions kept inside it. */
export function makeApp(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'bridle-cli-'))
  cpSync(SAMPLE, join(dir, 'sample-project'), { recursive: true })
  mkdirSync(join(dir, 'plugins'))
  writeFileSync(join(dir, 'bridle.yaml'), yaml)
  return dir
}

export const DEMO_YAML = `plugins:
  - "@bridle/plugin-workspace"
  - "@bridle/plugin-read-file"
  - package: "@bridle/session-jsonl"
    config:
      root: sessions
systemPrompt:
  persona: "You answer questions about the project in {{cwd}}."
agent:
  cwd: ./sample-project
`

/** The session id `bridle run` printed. */
export function sessionIdOf(stderr: string): string {
  const id = /^bridle: session (\S+)$/m.exec(stderr)?.[1]
  if (!id) throw new Error(`no session id in:\n${stderr}`)
  return id
}
