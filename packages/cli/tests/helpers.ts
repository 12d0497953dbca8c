import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
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
  for (const key of [
    'DEEPSEEK_API_KEY',
    'BRIDLE_BASE_URL',
    'BRIDLE_MODEL',
    'BRIDLE_API_KEY',
    'BRIDLE_CONTEXT_WINDOW',
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_BASE_URL',
  ])
    delete env[key]
  return { ...env, ...extra }
}

/** Runs `bridle ARGS` in `cwd` and collects its output. */
export function bridle(args: string[], cwd: string, env = offlineEnv()): Promise<Finished> {
  return runCommand(process.execPath, [BIN, ...args], cwd, env)
}

/** Runs `command ARGS` in `cwd` with no input and collects its output. */
export function runCommand(command: string, args: string[], cwd: string, env = offlineEnv()): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
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

/** DEMO_YAML with `@bridle/plugin-compaction` loaded. */
export const COMPACTION_YAML = DEMO_YAML.replace('plugins:\n', 'plugins:\n  - "@bridle/plugin-compaction"\n')

/** Runs `bridle dev` with the given input lines and waits for it to exit. */
export function devWith(
  cwd: string,
  lines: string[],
  args: string[] = [],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'dev', ...args], { cwd, env: offlineEnv() })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => {
      stderr += d
      // one line at a time: dev says ready before the first prompt and after each, so line n goes after ready n + 1
      const ready = (stderr.match(/bridle dev: ready\n/g) ?? []).length
      if (ready === sent + 1) {
        if (sent < lines.length) child.stdin.write(`${lines[sent++]}\n`)
        else if (sent === lines.length) {
          sent++
          child.stdin.end()
        }
      }
    })
    let sent = 0
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** The session id `bridle run` printed. */
export function sessionIdOf(stderr: string): string {
  const id = /^bridle: session (\S+)$/m.exec(stderr)?.[1]
  if (!id) throw new Error(`no session id in:\n${stderr}`)
  return id
}

/** Quotes one argument for `sh -c`. */
const shellQuote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`

/** Strips terminal control sequences and carriage returns from pseudo-terminal output, for matching. */
export const plainTerminalText = (text: string) =>
  text
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
    .replace(/\r\n/g, '\n')
    .replace(/\r/g, '\n')

/**
 * `bridle ARGS` under a pseudo-terminal (util-linux `script`), so stdin and stdout are TTYs (`columns` wide, if given). Output arrives
 * on the returned child's stdout (stdout and stderr of bridle merged, as a terminal shows them). `script -e`
 * exits with bridle's code.
 */
export function spawnTty(args: string[], cwd: string, env = offlineEnv(), options: { columns?: number } = {}) {
  // `exec`: the CLI must be the terminal's own process. `script` runs the command through $SHELL (sh when unset, as
  // under CI), and a shell left in between dies of the Ctrl-C that the CLI itself handles, so `script` reports 130.
  const size = options.columns === undefined ? '' : `stty cols ${options.columns} rows 50; `
  const command = `${size}exec ${[process.execPath, BIN, ...args].map(shellQuote).join(' ')}`
  const shellEnv = { TERM: 'xterm', ...env, SHELL: '/bin/sh' }
  return spawn('script', ['-qfec', command, '/dev/null'], { cwd, env: shellEnv, stdio: ['pipe', 'pipe', 'pipe'] })
}

/** A process whose output is read until patterns show up. */
export class Transcript {
  text = ''
  private waiters: { pattern: RegExp; from: number; resolve: () => void }[] = []
  readonly closed: Promise<number | null>

  constructor(
    readonly child: ChildProcessWithoutNullStreams,
    streams = [child.stdout, child.stderr],
  ) {
    for (const stream of streams) {
      stream.on('data', (d) => {
        this.text += d
        this.waiters = this.waiters.filter((w) =>
          w.pattern.test(this.text.slice(w.from)) ? (w.resolve(), false) : true,
        )
      })
    }
    this.closed = new Promise((resolve) => child.on('close', resolve))
  }

  /** Resolves when `pattern` appears after the current end of the text (or after `from`). */
  waitFor(pattern: RegExp, from = this.text.length): Promise<void> {
    if (pattern.test(this.text.slice(from))) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push({ pattern, from, resolve }))
  }
}
